import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The face detector's own process (started by face-detect.ts): face-api's
 * tiny face detector on TensorFlow.js's WebAssembly backend. Loading the
 * runtime and running the model takes about 150 MB (its code, and
 * WebAssembly memory that never shrinks), so it lives apart from the process
 * that renders a book and ends when it has had nothing to do for a while,
 * giving that memory back.
 *
 * Messages in: `{id, width, height, data}` (an upright RGB preview); out:
 * `{id, faces}` (pixel boxes with scores) or `{id, error}`.
 */

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

export interface FaceRequest {
  id: number;
  width: number;
  height: number;
  data: Uint8Array;
  inputSize: number;
  minScore: number;
}
export interface FaceReply {
  id: number;
  faces?: { score: number; x: number; y: number; w: number; h: number }[];
  error?: string;
}

const require = createRequire(import.meta.url);
let loading: Promise<FaceApi> | undefined;

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

async function detect(req: FaceRequest): Promise<FaceReply> {
  try {
    const api = await loadDetector();
    const tensor = api.tf.tensor3d(req.data, [req.height, req.width, 3], 'int32');
    try {
      const found = await api.detectAllFaces(tensor, new api.TinyFaceDetectorOptions({ inputSize: req.inputSize, scoreThreshold: req.minScore }));
      return { id: req.id, faces: found.map(({ score, box }) => ({ score, x: box.x, y: box.y, w: box.width, h: box.height })) };
    } finally {
      tensor.dispose();
    }
  } catch (err) {
    return { id: req.id, error: err instanceof Error ? err.message : String(err) };
  }
}

if (process.send) {
  // One request at a time (the backend is single-threaded), in the order they came.
  let queue: Promise<unknown> = Promise.resolve();
  process.on('message', (req: FaceRequest) => {
    queue = queue.then(async () => process.send?.(await detect(req)));
  });
  process.on('disconnect', () => process.exit(0));
}
