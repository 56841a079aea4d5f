/**
 * `npm run bench -- crops`: which way of finding a photo's subject keeps
 * faces whole when the photo is cropped to the cells the themes use.
 *
 * The photos are real: the six sample photos shipped in the
 * @vladmandic/face-api package (groups of three to six people, 1920 px),
 * read from node_modules. From each face in them the bench cuts the photos
 * a contributor would send of that person: a head-and-shoulders portrait
 * (3:4), a half-length portrait (2:3), both with the face off the middle,
 * and a landscape (3:2) with the person on a third. The truth is the
 * face-api SSD MobileNet v1 detector (a larger model than the one under
 * test) run on the full-size original; its boxes were checked by eye.
 *
 * Each photo is then cropped, as the renderer does (cropRectAround), to
 * the cell shapes of the themes (3:2, 4:3, 1:1, 4:5, 2:3) around the subject
 * found by: the centre (no detection), sharp's attention strategy
 * (detectAttention), smartcrop (its skin, saturation and edge map) and the
 * face detector (detectSubject: faces, else attention). Counted: how often
 * the person's whole face is inside the crop, over the crops that cut
 * (cell and photo of different shapes), and the time each takes per photo.
 * A crop keeps the person when it slices no face and the person's is whole
 * (in a landscape of several people, any one of them whole).
 *
 * Writes bench/results/subject-crops-latest.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { CENTRE, cropRectAround, detectAttention, detectSubject, type CropRect, type FocalPoint } from '../src/media-tools/focal-crop.js';

const require = createRequire(import.meta.url);
interface SmartcropImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}
const smartcrop = require('smartcrop') as {
  crop(image: SmartcropImage, options: { width: number; height: number; minScale: number; imageOperations: unknown }): Promise<{ topCrop: { x: number; y: number; width: number; height: number } }>;
};
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FACE_API = path.dirname(require.resolve('@vladmandic/face-api/package.json'));
const SAMPLES = [1, 2, 3, 4, 5, 6].map((i) => path.join(FACE_API, 'demo', `sample${i}.jpg`));
const CELLS = { '3:2': 1.5, '4:3': 4 / 3, '1:1': 1, '4:5': 0.8, '2:3': 2 / 3 } as const;

interface Pixels {
  x: number;
  y: number;
  w: number;
  h: number;
}
interface Photo {
  file: string;
  kind: 'head-and-shoulders' | 'half-length' | 'landscape';
  size: { w: number; h: number };
  /** The person's face, in the photo's pixels. */
  face: Pixels;
  /** Every face wholly in the photo (the person's among them). */
  faces: Pixels[];
}

/** The reference: SSD MobileNet v1 on the full-size photo (not the detector under test). */
async function referenceFaces(file: string): Promise<Pixels[]> {
  const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
  const { tf } = api;
  if (!api.nets.ssdMobilenetv1.isLoaded) {
    await tf.setBackend('wasm');
    await tf.ready();
    const dir = path.join(FACE_API, 'model');
    const manifest = JSON.parse(readFileSync(path.join(dir, 'ssd_mobilenetv1_model-weights_manifest.json'), 'utf8'));
    const bin = readFileSync(path.join(dir, 'ssd_mobilenetv1_model.bin'));
    await api.nets.ssdMobilenetv1.loadFromWeightMap(tf.io.decodeWeights(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength), manifest[0].weights));
  }
  const { data, info } = await sharp(file).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const tensor = tf.tensor3d(new Uint8Array(data.buffer, data.byteOffset, data.length), [info.height, info.width, 3], 'int32');
  try {
    const found: { box: { x: number; y: number; width: number; height: number } }[] = await api.detectAllFaces(tensor, new api.SsdMobilenetv1Options({ minConfidence: 0.5 }));
    return found.map(({ box }) => ({ x: box.x, y: box.y, w: box.width, h: box.height }));
  } finally {
    tensor.dispose();
  }
}

/** The photos of one person cut from a group photo: the window in the original, the face placed off the middle. */
function windows(size: { w: number; h: number }, face: Pixels, n: number): { kind: Photo['kind']; rect: Pixels }[] {
  const shift = [-0.12, 0.1, 0, 0.15, -0.08][n % 5];
  const out: { kind: Photo['kind']; rect: Pixels }[] = [];
  const place = (kind: Photo['kind'], aspect: number, faceShare: number, top: number, across: number) => {
    let h = Math.min(size.h, face.h / faceShare);
    let w = h * aspect;
    if (w > size.w) [w, h] = [size.w, size.w / aspect];
    const cx = face.x + face.w / 2 - (across - 0.5) * w;
    const x = Math.min(Math.max(cx - w / 2, 0), size.w - w);
    const y = Math.min(Math.max(face.y - top * h, 0), size.h - h);
    out.push({ kind, rect: { x: Math.round(x), y: Math.round(y), w: Math.round(w), h: Math.round(h) } });
  };
  place('head-and-shoulders', 3 / 4, 0.24, 0.14 + (n % 3) * 0.03, 0.5 + shift);
  place('half-length', 2 / 3, 0.14, 0.08 + (n % 2) * 0.04, 0.5 + shift);
  place('landscape', 3 / 2, 0.3, 0.12, n % 2 ? 1 / 3 : 2 / 3);
  return out;
}

async function makePhotos(dir: string): Promise<Photo[]> {
  const photos: Photo[] = [];
  for (const [s, sample] of SAMPLES.entries()) {
    const meta = await sharp(sample).metadata();
    const size = { w: meta.width!, h: meta.height! };
    const faces = await referenceFaces(sample);
    for (const [n, face] of faces.entries()) {
      for (const { kind, rect } of windows(size, face, n)) {
        // Only a window that holds this face whole, and is big enough to be a photo someone sends.
        if (face.x < rect.x || face.y < rect.y || face.x + face.w > rect.x + rect.w || face.y + face.h > rect.y + rect.h || Math.min(rect.w, rect.h) < 500) continue;
        const file = path.join(dir, `s${s + 1}-f${n}-${kind}.jpg`);
        await writeFile(file, await sharp(sample).extract({ left: rect.x, top: rect.y, width: rect.w, height: rect.h }).jpeg({ quality: 90 }).toBuffer());
        const within = faces
          .map((f) => ({ x: f.x - rect.x, y: f.y - rect.y, w: f.w, h: f.h }))
          .filter((f) => f.x >= 0 && f.y >= 0 && f.x + f.w <= rect.w && f.y + f.h <= rect.h);
        photos.push({ file, kind, size: { w: rect.w, h: rect.h }, face: { x: face.x - rect.x, y: face.y - rect.y, w: face.w, h: face.h }, faces: within });
      }
    }
  }
  return photos;
}

/** smartcrop on sharp: a raw RGBA preview with its shorter side 256 px (smartcrop's own working size). */
async function smartcropRect(file: string, size: { w: number; h: number }, aspect: number): Promise<CropRect> {
  const scale = 256 / Math.min(size.w, size.h);
  const { data, info } = await sharp(file).rotate().resize(Math.round(size.w * scale), Math.round(size.h * scale), { fit: 'fill' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length) };
  const iop = {
    open: async () => image,
    resample: async () => image,
    getData: async () => image,
  };
  const { topCrop } = await smartcrop.crop(image, { width: aspect * 1000, height: 1000, minScale: 1, imageOperations: iop });
  const k = size.w / info.width;
  // smartcrop's largest crop of the shape; placed by its centre, as the renderer would.
  const focal = { x: ((topCrop.x + topCrop.width / 2) * k) / size.w, y: ((topCrop.y + topCrop.height / 2) * k) / size.h };
  return cropRectAround(size, aspect, focal);
}

type Method = 'centre' | 'attention' | 'smartcrop' | 'faces';
const METHODS: Method[] = ['centre', 'attention', 'smartcrop', 'faces'];

const inside = (face: Pixels, r: CropRect) => face.x >= r.left - 0.5 && face.y >= r.top - 0.5 && face.x + face.w <= r.left + r.width + 0.5 && face.y + face.h <= r.top + r.height + 0.5;
const outside = (face: Pixels, r: CropRect) => face.x + face.w <= r.left || face.x >= r.left + r.width || face.y + face.h <= r.top || face.y >= r.top + r.height;
/**
 * A crop keeps the photo's people when no face is sliced by its edge and the one the photo is of is whole
 * (a portrait's person; in a landscape of several people, any one of them).
 */
const keeps = (photo: Photo, r: CropRect) =>
  photo.faces.every((f) => inside(f, r) || outside(f, r)) && (photo.kind === 'landscape' ? photo.faces.some((f) => inside(f, r)) : inside(photo.face, r));

export async function runSubjectCropsBench(): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'memorybook-crops-'));
  try {
    console.log('cutting portraits from the face-api samples (reference faces: SSD MobileNet v1 at full size) …');
    const photos = await makePhotos(dir);
    // Warm both detectors (the model load is paid once per process, not per photo).
    await detectSubject(photos[0].file);
    await detectAttention(photos[0].file);
    const kept: Record<Method, Record<string, [number, number]>> = Object.fromEntries(METHODS.map((m) => [m, {}])) as never;
    const ms: Record<Method, number[]> = { centre: [], attention: [], smartcrop: [], faces: [] };
    const found = { faces: 0, none: 0 };
    for (const photo of photos) {
      const t0 = performance.now();
      const attention = await detectAttention(photo.file);
      ms.attention.push(performance.now() - t0);
      const t1 = performance.now();
      const subject = await detectSubject(`${photo.file}`);
      ms.faces.push(performance.now() - t1);
      found[subject.by === 'faces' ? 'faces' : 'none']++;
      for (const [cell, aspect] of Object.entries(CELLS)) {
        const photoAspect = photo.size.w / photo.size.h;
        if (Math.abs(Math.log(photoAspect / aspect)) < 0.02) continue; // the same shape: nothing is cut
        const rects: Record<Method, () => Promise<CropRect>> = {
          centre: async () => cropRectAround(photo.size, aspect, CENTRE),
          attention: async () => cropRectAround(photo.size, aspect, attention as FocalPoint),
          smartcrop: async () => {
            const t = performance.now();
            const r = await smartcropRect(photo.file, photo.size, aspect);
            ms.smartcrop.push(performance.now() - t);
            return r;
          },
          faces: async () => cropRectAround(photo.size, aspect, subject.focal, subject.heads),
        };
        for (const m of METHODS) {
          const r = await rects[m]();
          const key = `${photo.kind} → ${cell}`;
          const [k, n] = kept[m][key] ?? [0, 0];
          kept[m][key] = [k + (keeps(photo, r) ? 1 : 0), n + 1];
        }
      }
    }
    const total = (m: Method) => Object.values(kept[m]).reduce(([a, b], [k, n]) => [a + k, b + n], [0, 0]);
    const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0);
    console.log(`\n${photos.length} photos (${photos.filter((p) => p.kind !== 'landscape').length} portraits), faces found by the detector in ${found.faces}; load ${os.loadavg()[0].toFixed(1)}\n`);
    console.log(['crop', ...METHODS].join(' | '));
    for (const key of Object.keys(kept.centre)) console.log([key, ...METHODS.map((m) => `${kept[m][key][0]}/${kept[m][key][1]}`)].join(' | '));
    console.log(['all', ...METHODS.map((m) => `${total(m)[0]}/${total(m)[1]} (${Math.round((100 * total(m)[0]) / total(m)[1])}%)`)].join(' | '));
    console.log(['ms per photo (median)', '0', ...(['attention', 'smartcrop', 'faces'] as const).map((m) => median(ms[m]).toFixed(0))].join(' | '));
    const result = { photos: photos.length, loadavg: os.loadavg(), kept, total: Object.fromEntries(METHODS.map((m) => [m, total(m)])), msMedian: Object.fromEntries(Object.entries(ms).map(([m, xs]) => [m, median(xs)])) };
    mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(path.join(ROOT, 'bench', 'results', 'subject-crops-latest.json'), `${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
