import { describe, expect, it } from 'vitest';
import { honouredOf, portraitBox, PORTRAIT_ASPECT } from './frontispiece.js';

describe("a memorial's frontispiece: the name and years read from the title", () => {
  it('takes the name before a natural break, and the years apart', () => {
    expect(honouredOf('Rose Ellis, 1931–2024', '')).toEqual({ name: 'Rose Ellis', years: '1931–2024' });
    expect(honouredOf('In loving memory of Rose Ellis (1931 - 2024)', '')).toEqual({ name: 'Rose Ellis', years: '1931–2024' });
    expect(honouredOf('Margaret Hale: a life in letters', '1940—2025')).toEqual({ name: 'Margaret Hale', years: '1940–2025' });
  });

  it('shows the name alone when the book gives no years (nothing invented)', () => {
    expect(honouredOf('Margaret Hale: a life in letters', 'From all of us')).toEqual({ name: 'Margaret Hale', years: null });
    expect(honouredOf('Bà nội 90 — 奶奶 — جدتي', 'Cảm ơn bà ❤️')).toEqual({ name: 'Bà nội 90', years: null });
    // A single year (a birthday, an anniversary) is not a life's span.
    expect(honouredOf('Remembering Tom, summer 2024', '').years).toBeNull();
  });

  it('frames the portrait upright and large, on the page, a little above its middle', () => {
    const page = { x: 0, y: 0, w: 595, h: 595 };
    const box = portraitBox(page);
    expect(box.w / box.h).toBeCloseTo(PORTRAIT_ASPECT, 5);
    expect(box.h).toBeGreaterThan(page.h * 0.7);
    expect(box.x + box.w / 2).toBeCloseTo(page.w / 2, 5);
    expect(box.y).toBeLessThan(page.h - box.y - box.h);
  });
});
