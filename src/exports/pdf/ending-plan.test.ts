import { describe, expect, it } from 'vitest';
import { endingPlan } from './ending-plan.js';

/** Where the colophon falls and how many pages the book has, for a plan. */
const shape = (pages: number, list: number, plan: ReturnType<typeof endingPlan>) => {
  const colophon = pages + plan.fill.length + list + 1;
  return { colophon, total: colophon + plan.blanks };
};

describe('endingPlan', () => {
  it('fills a print multiple before the ending: the colophon a recto facing the index, only the back of its leaf blank', () => {
    for (let pages = 20; pages < 28; pages++) {
      for (const list of [1, 2, 3]) {
        for (const unit of [2, 4] as const) {
          const plan = endingPlan(pages, list, unit, false, true);
          const { colophon, total } = shape(pages, list, plan);
          expect(total % unit).toBe(0);
          expect(colophon % 2).toBe(1);
          expect(plan.blanks).toBe(1);
          expect(plan.fill).not.toContain('notes');
          // Never two quote pages in a row while the closing photo can part them.
          expect(plan.fill.join(',')).not.toMatch(/quote,quote/);
          expect(plan.photoUsed).toBe(plan.fill.includes('photo'));
        }
      }
    }
  });

  it('rules notes pages in a theme meant for writing, the turn page staying a quote', () => {
    const plan = endingPlan(21, 2, 4, true, true);
    expect(plan.fill).toEqual(['quote', 'notes', 'notes']);
    expect(shape(21, 2, plan).total % 4).toBe(0);
  });

  it('with no index to face, the colophon is the last page', () => {
    for (let pages = 3; pages < 9; pages++) {
      const plan = endingPlan(pages, 0, 4, false, false);
      expect(plan.blanks).toBe(0);
      expect(shape(pages, 0, plan).total % 4).toBe(0);
    }
  });
});
