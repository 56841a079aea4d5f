import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { cropRectAround, detectFocalPoint } from '../../src/media-tools/focal-crop.js';

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
