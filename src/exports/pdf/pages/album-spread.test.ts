import { describe, expect, it } from 'vitest';
import { quotePageAllowed } from '../pacing.js';
import { spreadMove, spreadPhotoAt, type SpreadState } from './album-spread.js';

const state = (s: Partial<SpreadState>): SpreadState => ({ fresh: false, recto: false, short: false, quoteTooSoon: false, opensHere: true, ...s });

describe('an album spread', () => {
  it('sets the photo on a verso with nothing on it, the words opening on the recto facing it', () => {
    expect(spreadMove(state({ fresh: true }))).toBe('here');
  });
  it('turns a well-filled recto to reach the next verso, but never leaves it mostly empty or a quote page too soon', () => {
    expect(spreadMove(state({ recto: true }))).toBe('turn');
    expect(spreadMove(state({ recto: true, short: true }))).toBe('inline');
    expect(spreadMove(state({ recto: true, quoteTooSoon: true }))).toBe('inline');
  });
  it('lets words opening on a verso begun face their photo on the recto, else keeps the photo with its words', () => {
    expect(spreadMove(state({}))).toBe('facing');
    expect(spreadMove(state({ opensHere: false }))).toBe('inline');
    expect(spreadMove(state({ fresh: true, recto: true }))).toBe('inline');
  });
  it('centres the mounted photo across the live area, a little above the middle', () => {
    const at = spreadPhotoAt({ x: 100, y: 50, w: 400, h: 500 }, { width: 200, height: 300 }, [12, 12, 12, 12]);
    expect(at.x).toBeCloseTo(100 + (400 - 224) / 2 + 12);
    expect(at.y).toBeCloseTo(50 + (500 - 324) * 0.45 + 12);
  });
});

describe('quote pages', () => {
  it('come never two in a row, and at most one in the theme’s quoteEvery pages', () => {
    expect(quotePageAllowed(10, 0, 2)).toBe(true);
    expect(quotePageAllowed(11, 10, 2)).toBe(false);
    expect(quotePageAllowed(12, 10, 2)).toBe(true);
    expect(quotePageAllowed(12, 10, 3)).toBe(false);
    expect(quotePageAllowed(13, 10, 3)).toBe(true);
    // (A theme asking for none apart is still never given two in a row.)
    expect(quotePageAllowed(11, 10, 1)).toBe(false);
  });
});
