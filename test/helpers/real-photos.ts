/**
 * Real photos of people for the test book and the theme gallery: the six
 * demo photos shipped in the face-api package (MIT; 1,920 px wide phone-like
 * group shots), read from node_modules at run time and never copied into the
 * repository. Each orientation a book meets is cut from them at the largest
 * size the sample allows, around the faces the repository's own detector
 * finds (findSubject), and only from samples where that cut slices no head.
 *
 * A cut comes with its subject findings (the sample's faces, moved into the
 * cut): what the export service stores on a photo's media row when it is
 * processed, so a renderer given them does not look for the faces again.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { cropRectAround, findSubject, subjectOf, SUBJECT_VERSION, type CropRect, type SubjectFindings } from '../../src/media-tools/focal-crop.js';
import type { Box } from '../../src/media-tools/face-detect.js';

const DEMO = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');

/** The sample photos' files. */
export const SAMPLE_PHOTOS = [1, 2, 3, 4, 5, 6].map((n) => path.join(DEMO, `sample${n}.jpg`));

/** Width / height of each orientation, as seen upright ("turned" is stored landscape with EXIF orientation 6: upright a portrait). */
export const ORIENTATIONS = {
  landscape: 3 / 2,
  portrait: 2 / 3,
  square: 1,
  panorama: 3,
  tall: 7 / 15,
  turned: 2 / 3,
} as const;
export type Orientation = keyof typeof ORIENTATIONS;

interface Sample {
  file: string;
  width: number;
  height: number;
  findings: SubjectFindings;
  heads: Box[];
}

let samples: Promise<Sample[]> | undefined;

/** The samples with their faces, looked at once per process. */
export function samplePhotos(): Promise<Sample[]> {
  samples ??= Promise.all(
    SAMPLE_PHOTOS.map(async (file) => {
      const { width, height } = await sharp(file).metadata();
      const findings = await findSubject(file);
      if (!findings) throw new Error(`the face detector could not look at ${file}`);
      return { file, width: width!, height: height!, findings, heads: subjectOf(findings).heads };
    }),
  );
  return samples;
}

/**
 * The tiny face detector misses sample 2's two women looking down: a cut of it could slice their faces
 * unseen, so it is used whole (in the orientation of the sample itself) only.
 */
const UNCUT_ONLY = new Set([1]);

/** How many of the sample's heads `rect` holds whole; 0 when it slices one. */
function headsHeld(sample: Sample, rect: CropRect): number {
  const [x0, y0, x1, y1] = [rect.left / sample.width, rect.top / sample.height, (rect.left + rect.width) / sample.width, (rect.top + rect.height) / sample.height];
  const slack = 1e-3;
  let whole = 0;
  for (const h of sample.heads) {
    const inside = h.x >= x0 - slack && h.y >= y0 - slack && h.x + h.w <= x1 + slack && h.y + h.h <= y1 + slack;
    const outside = h.x + h.w <= x0 || h.x >= x1 || h.y + h.h <= y0 || h.y >= y1;
    if (!inside && !outside) return 0;
    if (inside) whole++;
  }
  return whole;
}

/** A cut of a sample: which one, and the rectangle (pixels of the sample). */
export interface Cut {
  sample: number;
  rect: CropRect;
  /** How many of the sample's heads it holds whole, and how many the sample has. */
  held: number;
  of: number;
  /** Mirrored left to right (a cut used a second time, so it reads as another photo). */
  mirrored?: boolean;
}

/**
 * The different cuts of `aspect` that slice no head, each as large as the sample allows: around the group's
 * faces, then along the photo with one of its heads at the cut's edge or middle (one or two of a group). Samples take turns, so
 * neighbouring cuts come from different photos.
 */
export async function cutsOf(aspect: number): Promise<Cut[]> {
  const all = await samplePhotos();
  const perSample = all.map((sample, index) => {
    const uncut = Math.abs(sample.width / sample.height - aspect) < 0.1;
    if (UNCUT_ONLY.has(index) && !uncut) return [];
    const size = { w: sample.width, h: sample.height };
    const group = cropRectAround(size, aspect, subjectOf(sample.findings).focal, sample.heads);
    // Across the photo, a head at either edge of the cut or in its middle; down it, where the group's cut is.
    const lefts = sample.heads.flatMap((h) => [h.x * size.w - 0.03 * size.w, (h.x + h.w) * size.w - group.width + 0.03 * size.w, (h.x + h.w / 2) * size.w - group.width / 2]);
    const cuts: Cut[] = [];
    for (const left of [group.left, ...lefts]) {
      const rect = { ...group, left: Math.round(Math.min(Math.max(left, 0), size.w - group.width)) };
      // (Cuts that differ by less than a fifth of the sample's width are the same picture.)
      if (cuts.some((c) => Math.abs(c.rect.left - rect.left) < 0.2 * size.w)) continue;
      const held = headsHeld(sample, rect);
      if (held) cuts.push({ sample: index, rect, held, of: sample.heads.length });
    }
    return cuts;
  });
  // A cut of two people or half the group reads as a photo of them; one person of five and the others' knees
  // does not (but a tall strip holds one person of any group).
  const groupCuts = perSample.map((cuts) => cuts.filter((c) => c.held >= Math.min(2, c.of / 2)));
  const usable = groupCuts.some((c) => c.length) ? groupCuts : perSample;
  const turns: Cut[] = [];
  for (let round = 0; usable.some((c) => c.length > round); round++) for (const cuts of usable) if (cuts[round]) turns.push(cuts[round]);
  return turns;
}

/**
 * Writes `file`: a cut of a sample (turned: stored on its side with EXIF orientation 6), and returns the
 * cut's subject findings (the faces within it, as fractions of the upright cut).
 */
export async function writeCut(file: string, cut: Cut, turned = false): Promise<SubjectFindings> {
  const sample = (await samplePhotos())[cut.sample];
  const { rect } = cut;
  let img = sharp(sample.file).extract(rect);
  if (cut.mirrored) img = img.flop();
  // Stored landscape, to be turned a quarter clockwise when shown (as a phone held upright writes it).
  if (turned) img = sharp(await img.rotate(270).toBuffer()).withMetadata({ orientation: 6 });
  await writeFile(file, await img.jpeg({ quality: 85 }).toBuffer());
  const faces = sample.findings.faces
    .map((f) => {
      const [w, h] = [(f.w * sample.width) / rect.width, (f.h * sample.height) / rect.height];
      const x = (f.x * sample.width - rect.left) / rect.width;
      return { ...f, x: cut.mirrored ? 1 - x - w : x, y: (f.y * sample.height - rect.top) / rect.height, w, h };
    })
    .filter((f) => f.x >= 0 && f.y >= 0 && f.x + f.w <= 1 && f.y + f.h <= 1);
  return { version: SUBJECT_VERSION, faces, attention: null };
}

/** A photo to write: its key (`<key>.jpg`), its shape (width / height, upright) and whether it is stored turned. */
export interface WantedPhoto {
  key: string;
  aspect: number;
  turned?: boolean;
}

/**
 * Writes each wanted photo into `dir` as `<key>.jpg`: the photos of one shape take that shape's cuts in
 * turn (mirrored once the cuts run out, so a repeat reads as another photo), so neighbours show different
 * people. Returns each photo's subject findings by key, as the export service keeps them with a photo's
 * media row (an openPicture hands them to the renderer).
 */
export async function writePhotos(dir: string, wanted: WantedPhoto[]): Promise<Map<string, SubjectFindings>> {
  // Cut once per machine (the faces found and the JPEGs encoded cost seconds of CPU), then copied: each test
  // file (a worker of its own) and the gallery get the same photos. Keyed by this file, the package and the wanted list.
  const source = await readFile(fileURLToPath(import.meta.url));
  const key = createHash('sha1').update(source).update(await readFile(path.join(DEMO, '..', 'package.json'))).update(JSON.stringify(wanted)).digest('hex').slice(0, 16);
  const cache = path.join(tmpdir(), `memorybook-real-photos-${key}`);
  const stored = await readFile(path.join(cache, 'findings.json'), 'utf8').catch(() => null);
  if (!stored) {
    const fresh = await mkdtemp(`${cache}-`);
    const found = await cutPhotos(fresh, wanted);
    await writeFile(path.join(fresh, 'findings.json'), JSON.stringify([...found]));
    // (Another process may have stored the same meanwhile: its copy is as good.)
    await rename(fresh, cache).catch(() => rm(fresh, { recursive: true, force: true }));
  }
  await Promise.all(wanted.map((w) => copyFile(path.join(cache, `${w.key}.jpg`), path.join(dir, `${w.key}.jpg`))));
  return new Map(JSON.parse(await readFile(path.join(cache, 'findings.json'), 'utf8')) as [string, SubjectFindings][]);
}

async function cutPhotos(dir: string, wanted: WantedPhoto[]): Promise<Map<string, SubjectFindings>> {
  const cuts = new Map<number, Promise<Cut[]>>();
  const used = new Map<number, number>();
  const found = new Map<string, SubjectFindings>();
  const jobs = wanted.map((photo) => {
    if (!cuts.has(photo.aspect)) cuts.set(photo.aspect, cutsOf(photo.aspect));
    const n = used.get(photo.aspect) ?? 0;
    used.set(photo.aspect, n + 1);
    return { photo, n };
  });
  await Promise.all(
    jobs.map(async ({ photo, n }) => {
      const shapes = await cuts.get(photo.aspect)!;
      if (!shapes.length) throw new Error(`no sample can be cut to ${photo.aspect.toFixed(2)}:1 without slicing a head`);
      const cut = { ...shapes[n % shapes.length], mirrored: Math.floor(n / shapes.length) % 2 === 1 };
      found.set(photo.key, await writeCut(path.join(dir, `${photo.key}.jpg`), cut, photo.turned));
    }),
  );
  return found;
}
