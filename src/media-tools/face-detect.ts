import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadSharp } from './sharp.js';

/**
 * Faces in a photo, found by face-api's tiny face detector (MIT; its model,
 * 190 KB, ships inside the npm package, so nothing is downloaded) on
 * TensorFlow.js's WebAssembly backend (its .wasm files ship in its package
 * too). Run on an upright preview of at most 416 pixels: about 0.1–0.2 s a
 * photo on one core. The model and the runtime load with the first photo
 * (about 0.5 s) and stay loaded.
 *
 * Boxes are fractions of the upright photo (0..1 from its left and top).
 */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Face extends Box {
  score: number;
}

/** The longest side of the preview faces are looked for in (the detector's own input size). */
const PREVIEW_PX = 416;
/** Below this the detector's guesses are mostly not faces. */
const MIN_SCORE = 0.45;

interface Tensor {
  dispose(): void;
}
interface FaceApi {
  tf: {
    setBackend(name: string): Promise<boolean>;
    ready(): Promise<void>;
    tensor3d(values: Uint8Array, shape: [number, number, number], dtype: 'int32'): Tensor;
    io: { decodeWeights(buffer: ArrayBuffer, specs: unknown[]): unknown };
  };
  nets: { tinyFaceDetector: { loadFromWeightMap(map: unknown): Promise<void> } };
  TinyFaceDetectorOptions: new (o: { inputSize: number; scoreThreshold: number }) => unknown;
  detectAllFaces(input: Tensor, options: unknown): Promise<{ score: number; box: { x: number; y: number; width: number; height: number } }[]>;
}

const require = createRequire(import.meta.url);
let loading: Promise<FaceApi> | undefined;
/** One photo at a time: the backend is single-threaded, and queued previews would only hold memory. */
let queue: Promise<unknown> = Promise.resolve();

function loadDetector(): Promise<FaceApi> {
  return (loading ??= (async () => {
    const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    await api.tf.setBackend('wasm');
    await api.tf.ready();
    const dir = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
    const manifest = JSON.parse(await readFile(path.join(dir, 'tiny_face_detector_model-weights_manifest.json'), 'utf8')) as { weights: unknown[] }[];
    const bin = await readFile(path.join(dir, 'tiny_face_detector_model.bin'));
    const weights = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength) as ArrayBuffer;
    await api.nets.tinyFaceDetector.loadFromWeightMap(api.tf.io.decodeWeights(weights, manifest[0].weights));
    return api;
  })());
}

/**
 * The faces in a photo (a file or its bytes), largest first. Empty when
 * there are none or the photo cannot be read; null when the detector itself
 * cannot run (the caller falls back to another way of finding the subject).
 */
export async function detectFaces(input: string | Buffer): Promise<Face[] | null> {
  const sharp = await loadSharp();
  let preview;
  try {
    preview = await sharp(input, { failOn: 'none' })
      .rotate()
      .resize(PREVIEW_PX, PREVIEW_PX, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    return [];
  }
  let api: FaceApi;
  try {
    api = await loadDetector();
  } catch {
    return null;
  }
  const { data, info } = preview;
  const run = queue.then(async () => {
    const tensor = api.tf.tensor3d(new Uint8Array(data.buffer, data.byteOffset, data.length), [info.height, info.width, 3], 'int32');
    try {
      return await api.detectAllFaces(tensor, new api.TinyFaceDetectorOptions({ inputSize: PREVIEW_PX, scoreThreshold: MIN_SCORE }));
    } finally {
      tensor.dispose();
    }
  });
  queue = run.catch(() => undefined);
  try {
    const found = await run;
    return found
      .map(({ score, box }) => ({ score, x: box.x / info.width, y: box.y / info.height, w: box.width / info.width, h: box.height / info.height }))
      .sort((a, b) => b.w * b.h - a.w * a.h);
  } catch {
    return null;
  }
}
