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

  it('frames the portrait upright, inside the live area', () => {
    const live = { x: 100, y: 80, w: 400, h: 390 };
    const box = portraitBox(live);
    expect(box.w / box.h).toBeCloseTo(PORTRAIT_ASPECT, 5);
    expect(box.x).toBeGreaterThanOrEqual(live.x);
    expect(box.x + box.w).toBeLessThanOrEqual(live.x + live.w);
    expect(box.h).toBeLessThan(live.h);
  });
});
