/**
 * Crops around a photo's subject: the one cropping function shared by the
 * printed book, the cover (its `focal_point`), share cards and the web form.
 *
 * A focal point is where the subject is, as fractions of the upright photo's
 * width and height (0..1 from the left and top edges).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { facesIn, type Box, type Face } from './face-detect.js';
import { loadSharp } from './sharp.js';

export type { Box } from './face-detect.js';

export interface FocalPoint {
  x: number;
  y: number;
}

export interface CropRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export const CENTRE: FocalPoint = Object.freeze({ x: 0.5, y: 0.5 });

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0.5);

/**
 * The largest rectangle of `aspect` (width / height) inside a `w` × `h`
 * photo, centred on the focal point as far as the photo's edges allow.
 * With the subject's `heads` (boxes, fractions of the photo) it is placed to
 * cut no head, then to hold as much of them as it can (the largest count
 * most), then as near the focal point as that leaves it. Whole pixels,
 * never outside the photo, never empty.
 */
export function cropRectAround(size: { w: number; h: number }, aspect: number, focal: FocalPoint = CENTRE, heads?: readonly Box[] | null): CropRect {
  const { w, h } = size;
  let width = Math.min(w, Math.round(h * aspect));
  let height = Math.min(h, Math.round(width / aspect));
  width = Math.max(1, width);
  height = Math.max(1, height);
  const along = (focus: number, extent: number, crop: number, spans: [number, number, number][]) => {
    const fit = (v: number) => Math.round(Math.min(Math.max(v, 0), extent - crop));
    const centred = fit(focus * extent - crop / 2);
    if (!spans.length || crop >= extent) return centred;
    // Where the crop may start: on the focal point, or with a head at either edge or in the middle.
    const starts = new Set([centred, ...spans.flatMap(([a, b]) => [fit(a), fit(b - crop), fit((a + b) / 2 - crop / 2)])]);
    const all = spans.reduce((n, [, , weight]) => n + weight, 0) || 1;
    let best = centred;
    let bestScore = -Infinity;
    for (const start of starts) {
      let score = -Math.abs(start - centred) / extent;
      for (const [a, b, weight] of spans) {
        const inside = a >= start - 0.5 && b <= start + crop + 0.5;
        const outside = b <= start || a >= start + crop;
        score += inside ? (100 * weight) / all : outside ? 0 : -1000;
      }
      if (score > bestScore) [best, bestScore] = [start, score];
    }
    return best;
  };
  const boxes = heads ?? [];
  const area = (b: Box) => b.w * b.h;
  const left = along(clamp01(focal.x), w, width, boxes.map((b) => [clamp01(b.x) * w, clamp01(b.x + b.w) * w, area(b)]));
  const top = along(clamp01(focal.y), h, height, boxes.map((b) => [clamp01(b.y) * h, clamp01(b.y + b.h) * h, area(b)]));
  return { left, top, width, height };
}

/** What a photo is of: the point to centre a crop on and, when faces were found, the box that must stay whole. */
export interface Subject {
  focal: FocalPoint;
  /** Around the foreground heads (faces with hair and chin, fractions of the upright photo), or null when no face was found. */
  box: Box | null;
  /** Every head found (the background ones too: a crop should not slice those either), largest first. */
  heads: Box[];
  /** How it was found. */
  by: 'faces' | 'attention';
}

/**
 * A face box grown to the head it belongs to (the detector's box runs from the brows to the chin): the
 * forehead and hair above, the chin's shadow below, the ears at the sides.
 */
export function headOf(face: Box): Box {
  const x0 = Math.max(0, face.x - face.w * 0.2);
  const y0 = Math.max(0, face.y - face.h * 0.45);
  const x1 = Math.min(1, face.x + face.w * 1.2);
  const y1 = Math.min(1, face.y + face.h * 1.15);
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

/** The SHA-1 of a photo's bytes (read from its file, streamed); null when the file cannot be read. */
async function contentKey(input: string | Buffer): Promise<string | null> {
  const hash = createHash('sha1');
  if (typeof input !== 'string') return hash.update(input).digest('hex');
  try {
    for await (const chunk of createReadStream(input)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } catch {
    return null;
  }
}

/** Faces smaller than this share of the largest one's area are people in the background, not the subject. */
const BACKGROUND_FACE = 0.3;
const subjects = new Map<string, Promise<Subject>>();
const SUBJECTS_KEPT = 2000;

/**
 * What finding a photo's subject saw, as stored with its media row (found once, when the photo is
 * processed): the faces (fractions of the upright photo, largest first) and, when there are none, sharp's
 * attention point. `version` names the way it was found: a stored value of another version is found again.
 */
export interface SubjectFindings {
  version: number;
  faces: Face[];
  attention: FocalPoint | null;
}

/** The version of SubjectFindings this detector writes (face-api's tiny detector at 416 px, then attention). */
export const SUBJECT_VERSION = 1;

/** Stored findings of this version, read defensively (a jsonb column); null for anything else. */
export function currentFindings(stored: unknown): SubjectFindings | null {
  if (!stored || typeof stored !== 'object') return null;
  const f = stored as Partial<SubjectFindings>;
  if (f.version !== SUBJECT_VERSION || !Array.isArray(f.faces)) return null;
  return { version: f.version, faces: f.faces, attention: f.attention ?? null };
}

/**
 * The faces in a photo and, when it has none, its attention point: what its media row stores. Null when
 * the photo cannot be read or the detector cannot run (nothing is stored; the book detects it when printed).
 */
export async function findSubject(input: string | Buffer): Promise<SubjectFindings | null> {
  const preview = await previewOf(input);
  if (!preview) return null;
  const faces = await facesIn(preview);
  if (!faces) return null;
  return { version: SUBJECT_VERSION, faces, attention: faces.length ? null : await attentionIn(preview) };
}

/**
 * Where a photo's subject is, from its findings: the heads of the people in it, when faces were found (the
 * foreground ones: a face much smaller than the largest is a passer-by), else the attention point.
 */
export function subjectOf(found: SubjectFindings): Subject {
  const { faces } = found;
  if (!faces.length) return { focal: found.attention ? { x: clamp01(found.attention.x), y: clamp01(found.attention.y) } : { ...CENTRE }, box: null, heads: [], by: 'attention' };
  const largest = faces[0].w * faces[0].h;
  const heads = faces.map(headOf);
  const front = heads.filter((_, i) => faces[i].w * faces[i].h >= largest * BACKGROUND_FACE);
  const x0 = Math.min(...front.map((b) => b.x));
  const y0 = Math.min(...front.map((b) => b.y));
  const x1 = Math.max(...front.map((b) => b.x + b.w));
  const y1 = Math.max(...front.map((b) => b.y + b.h));
  const box = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  return { focal: { x: x0 + box.w / 2, y: y0 + box.h / 2 }, box, heads, by: 'faces' };
}

/**
 * Where a photo's subject is (subjectOf its findings), found now. Cached by the photo's content (its
 * SHA-1), so a photo printed twice in a book, or stored twice, is looked at once. A photo that cannot be
 * read is centred; one the detector cannot look at gets its attention point.
 */
export async function detectSubject(input: string | Buffer): Promise<Subject> {
  const key = await contentKey(input);
  const cached = key ? subjects.get(key) : undefined;
  if (cached) return cached;
  const found = (async (): Promise<Subject> => {
    const findings = await findSubject(input);
    if (findings) return subjectOf(findings);
    const preview = await previewOf(input);
    return { focal: preview ? await attentionIn(preview) : { ...CENTRE }, box: null, heads: [], by: 'attention' };
  })();
  if (key) {
    if (subjects.size >= SUBJECTS_KEPT) subjects.delete(subjects.keys().next().value!);
    subjects.set(key, found);
  }
  return found;
}

/** A photo's file and, when its media row has them, the findings stored when it was processed. */
export interface PhotoFile {
  path: string;
  subject?: unknown;
}

/** Where a photo's subject is: from its stored findings when they are of this version, else detected now. */
export async function subjectOfPhoto(photo: string | PhotoFile): Promise<Subject> {
  const file = typeof photo === 'string' ? { path: photo } : photo;
  const stored = currentFindings(file.subject);
  return stored ? subjectOf(stored) : detectSubject(file.path);
}

/** Where the subject of a photo is, as a point: the centre of its heads when it has faces, else sharp's attention point. */
export async function detectFocalPoint(input: string | Buffer): Promise<FocalPoint> {
  return (await detectSubject(input)).focal;
}

/** The longest side of the preview the subject is looked for in: the face detector's input size, enough for the attention map, cheap to decode. */
const PREVIEW_PX = 416;

/** A small upright RGB preview of a photo, decoded once for both ways of finding its subject; null when it cannot be read. */
export interface Preview {
  data: Buffer;
  width: number;
  height: number;
}

async function previewOf(input: string | Buffer): Promise<Preview | null> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(input, { failOn: 'none' })
      .rotate()
      .resize(PREVIEW_PX, PREVIEW_PX, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch {
    return null;
  }
}

/**
 * Where the subject of a photo is, from sharp's attention strategy (skin
 * tones, saturation, luminance frequency) run on a small upright preview:
 * once across (a third of the width) and once down (a third of the height),
 * so both coordinates are found whatever the photo's orientation. The centre
 * when the photo cannot be read.
 */
export async function detectAttention(input: string | Buffer): Promise<FocalPoint> {
  const preview = await previewOf(input);
  return preview ? attentionIn(preview) : { ...CENTRE };
}

async function attentionIn(preview: Preview): Promise<FocalPoint> {
  const sharp = await loadSharp();
  try {
    const { width: pw, height: ph } = preview;
    const raw = { raw: { width: pw, height: ph, channels: 3 } } as const;
    const along = async (tw: number, th: number) =>
      (
        await sharp(preview.data, raw)
          .resize(Math.max(1, tw), Math.max(1, th), { fit: 'cover', position: sharp.strategy.attention })
          .toBuffer({ resolveWithObject: true })
      ).info;
    const across = await along(Math.round(pw / 3), ph);
    const down = await along(pw, Math.round(ph / 3));
    const x = across.attentionX ?? -(across.cropOffsetLeft ?? 0) + Math.round(pw / 3) / 2;
    const y = down.attentionY ?? -(down.cropOffsetTop ?? 0) + Math.round(ph / 3) / 2;
    return { x: clamp01(x / pw), y: clamp01(y / ph) };
  } catch {
    return { ...CENTRE };
  }
}
