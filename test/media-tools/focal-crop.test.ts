import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { cellOfShape, chooseCellShape, cutShare, holdsSubject, OTHER_SHAPES } from '../../src/media-tools/cell-shape.js';
import { cropRectAround, detectFocalPoint, detectSubject } from '../../src/media-tools/focal-crop.js';

describe('cropRectAround', () => {
  it('keeps the focal point inside the crop and the crop inside the photo', () => {
    expect(cropRectAround({ w: 1200, h: 800 }, 1, { x: 0.75, y: 0.25 })).toEqual({ left: 400, top: 0, width: 800, height: 800 });
    expect(cropRectAround({ w: 800, h: 1200 }, 1.5, { x: 0.5, y: 0.1 })).toEqual({ left: 0, top: 0, width: 800, height: 533 });
    expect(cropRectAround({ w: 800, h: 1200 }, 1.5, { x: 0.5, y: 0.9 })).toEqual({ left: 0, top: 667, width: 800, height: 533 });
    expect(cropRectAround({ w: 1000, h: 1000 }, 2, { x: Number.NaN, y: 2 })).toEqual({ left: 0, top: 500, width: 1000, height: 500 });
  });
});

describe('detectFocalPoint', () => {
  it('finds a face-coloured subject off centre', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800"><rect width="1200" height="800" fill="#888"/><circle cx="900" cy="200" r="80" fill="#e0a080"/><circle cx="900" cy="200" r="40" fill="#c03020"/></svg>`;
    const jpeg = await sharp(Buffer.from(svg)).jpeg().toBuffer();
    const f = await detectFocalPoint(jpeg);
    expect(f.x).toBeGreaterThan(0.65);
    expect(f.y).toBeLessThan(0.35);
  });

  it('answers the centre for bytes that are not a picture', async () => {
    expect(await detectFocalPoint(Buffer.from('not a picture'))).toEqual({ x: 0.5, y: 0.5 });
  });
});

describe('cropRectAround with the heads in a photo', () => {
  it('slices no head: it moves off the focal point to keep a head whole or leave it out', () => {
    // A landscape cropped to a square: heads at 10–30% and 45–65% of the width, the focal point between.
    const heads = [
      { x: 0.1, y: 0.2, w: 0.2, h: 0.3 },
      { x: 0.45, y: 0.2, w: 0.2, h: 0.3 },
    ];
    const r = cropRectAround({ w: 1500, h: 1000 }, 1, { x: 0.6, y: 0.4 }, heads);
    for (const b of heads) {
      const [a, z] = [b.x * 1500, (b.x + b.w) * 1500];
      const inside = a >= r.left && z <= r.left + r.width;
      const outside = z <= r.left || a >= r.left + r.width;
      expect(inside || outside).toBe(true);
    }
    // Both fit in 1000 px (150..975): both are kept.
    expect(r.left).toBeLessThanOrEqual(150);
    expect(r.left + r.width).toBeGreaterThanOrEqual(975);
  });

  it('keeps the larger head when not all fit', () => {
    const heads = [
      { x: 0.05, y: 0.1, w: 0.3, h: 0.4 },
      { x: 0.75, y: 0.3, w: 0.1, h: 0.15 },
    ];
    const r = cropRectAround({ w: 2000, h: 1000 }, 0.8, { x: 0.5, y: 0.5 }, heads);
    expect(r.left).toBeLessThanOrEqual(100);
    expect(r.left + r.width).toBeGreaterThanOrEqual(700);
  });
});

describe('detectSubject on real photos (face-api’s samples, read from its package)', () => {
  const sample = (i: number) => path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', `sample${i}.jpg`);

  it('finds the faces of a group and crops a portrait of one person to a landscape cell without cutting a face', async () => {
    const group = await detectSubject(sample(3));
    expect(group.by).toBe('faces');
    expect(group.heads.length).toBe(3);
    // A portrait of the leftmost person, cut from the group photo as a phone would frame it.
    const meta = await sharp(sample(3)).metadata();
    const left = [...group.heads].sort((a, b) => a.x - b.x)[0];
    const h = meta.height!;
    const w = Math.round(h * 0.75);
    const x0 = Math.max(0, Math.round((left.x + left.w / 2) * meta.width! - w / 2));
    const portrait = await sharp(sample(3)).extract({ left: x0, top: 0, width: Math.min(w, meta.width! - x0), height: h }).jpeg().toBuffer();
    const subject = await detectSubject(portrait);
    expect(subject.by).toBe('faces');
    const size = { w: Math.min(w, meta.width! - x0), h };
    const crop = cropRectAround(size, 1.5, subject.focal, subject.heads);
    const head = subject.heads[0];
    expect(head.y * h).toBeGreaterThanOrEqual(crop.top - 1);
    expect((head.y + head.h) * h).toBeLessThanOrEqual(crop.top + crop.height + 1);
  });

  it('falls back to the attention point when there is no face', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800"><rect width="1200" height="800" fill="#4a6"/><circle cx="300" cy="600" r="90" fill="#d22"/></svg>`;
    const subject = await detectSubject(await sharp(Buffer.from(svg)).jpeg().toBuffer());
    expect(subject.by).toBe('attention');
    expect(subject.box).toBeNull();
    expect(subject.focal.x).toBeLessThan(0.45);
  });
});

describe('chooseCellShape', () => {
  it('keeps the layout’s cell when the crop costs a sliver, and never forces a portrait into a landscape cell', () => {
    expect(chooseCellShape(1.5, null, [4 / 3, ...OTHER_SHAPES])).toBeCloseTo(4 / 3);
    // A 3:4 portrait into a 4:3 grid cell would lose 44%: it takes 4:5 (6%).
    expect(chooseCellShape(0.75, null, [4 / 3, ...OTHER_SHAPES])).toBeCloseTo(0.8);
    // Into a 1.11 cell (rows of three): still over a sliver, so portrait too.
    expect(chooseCellShape(2 / 3, null, [1 / 0.9, ...OTHER_SHAPES])).toBeCloseTo(2 / 3);
    // A near-square portrait (0.95) into a 1.05 cell: 10% or less, kept.
    expect(chooseCellShape(0.95, null, [1.05, ...OTHER_SHAPES])).toBeCloseTo(1.05);
    expect(cutShare(0.75, 4 / 3)).toBeCloseTo(0.4375);
  });

  it('moves a photo whose subject the cell’s crop cannot hold to a shape that holds it', () => {
    // A square photo, its heads 70% high: a 3:2 cell keeps 67% of its height, a square keeps all.
    const box = { x: 0.2, y: 0.1, w: 0.5, h: 0.7 };
    expect(holdsSubject(1, box, 1.5)).toBe(false);
    expect(chooseCellShape(1, box, [1.5, ...OTHER_SHAPES])).toBe(1);
  });

  it('places the new shape centred in the slot', () => {
    expect(cellOfShape({ x: 10, y: 20, w: 200, h: 150 }, 0.8)).toEqual({ x: 50, y: 20, w: 120, h: 150 });
  });
});
