import { describe, expect, it } from 'vitest';
import { quotePageAllowed } from '../pacing.js';
import { bledAcross, spreadMove, spreadPhotoAt, type SpreadState } from './album-spread.js';

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

describe('a photo bled across an album page', () => {
  const page = (216 * 72) / 25.4;
  it('runs a landscape with the pixels for the page’s width off the top and both sides, cut to its own shape between 1.3:1 and 1.6:1', () => {
    expect(bledAcross({ w: 1920, h: 1280 }, page, 200)).toEqual({ w: page, h: page / 1.5 });
    expect(bledAcross({ w: 1920, h: 1080 }, page, 200)).toEqual({ w: page, h: page / 1.6 });
    expect(bledAcross({ w: 1800, h: 1500 }, page, 200)).toEqual({ w: page, h: page / 1.3 });
  });
  it('never for a portrait or square photo, nor one too small to print the page’s width at 200 ppi', () => {
    expect(bledAcross({ w: 1280, h: 1920 }, page, 200)).toBeNull();
    expect(bledAcross({ w: 1900, h: 1900 }, page, 200)).toBeNull();
    expect(bledAcross({ w: 1200, h: 800 }, page, 200)).toBeNull();
    // (A panorama cut to 1.6:1 keeps only 1,024 of its 1,920 pixels across.)
    expect(bledAcross({ w: 1920, h: 640 }, page, 200)).toBeNull();
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
