import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FaceReply, FaceRequest } from './face-detect-child.js';
import { loadSharp } from './sharp.js';

/**
 * Faces in a photo, found by face-api's tiny face detector (MIT; its model,
 * 190 KB, ships inside the npm package, so nothing is downloaded) on
 * TensorFlow.js's WebAssembly backend (its .wasm files ship in its package
 * too). Run on an upright preview of at most 416 pixels: about 0.1–0.2 s a
 * photo on one core. The detector runs in a process of its own
 * (face-detect-child.ts), started with the first photo (about 0.5 s to load)
 * and ended after 10 s with nothing to do: its runtime takes about 150 MB
 * that a book's render should not carry.
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
/** The detector's process ends after this long with nothing to do (its memory goes back to the system). */
const IDLE_MS = 10_000;
/** A photo the detector has not answered for in this long is given up on (the caller falls back). */
const ANSWER_MS = 60_000;

let child: ChildProcess | null = null;
let nextId = 1;
const waiting = new Map<number, (reply: FaceReply | null) => void>();
let idle: NodeJS.Timeout | null = null;

/** The detector's process, started with the first photo: from the compiled module, or through tsx from the source. */
function detector(): ChildProcess {
  if (child) return child;
  const here = fileURLToPath(import.meta.url);
  const file = path.join(path.dirname(here), `face-detect-child${path.extname(here)}`);
  const proc = fork(file, [], {
    serialization: 'advanced',
    execArgv: file.endsWith('.ts') ? ['--import', 'tsx'] : [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  proc.on('message', (reply: FaceReply) => {
    const done = waiting.get(reply.id);
    waiting.delete(reply.id);
    done?.(reply);
    if (!waiting.size) {
      hold(proc, false);
      rest();
    }
  });
  const gone = () => {
    // A process ended for being idle goes after a new one may have taken photos: those are the new one's to answer.
    if (child !== proc) return;
    child = null;
    for (const done of waiting.values()) done(null);
    waiting.clear();
  };
  proc.on('exit', gone);
  proc.on('error', gone);
  // The process never keeps this one alive; its channel only while a photo waits for an answer (see hold).
  proc.unref();
  child = proc;
  return proc;
}

/** Keeps this process alive while the detector has photos to answer for, and only then. */
function hold(proc: ChildProcess | null, on: boolean) {
  const channel = proc?.channel as { ref?(): void; unref?(): void } | undefined;
  if (on) channel?.ref?.();
  else channel?.unref?.();
}

/** Ends the detector's process once it has been idle for IDLE_MS. */
function rest() {
  if (idle) clearTimeout(idle);
  idle = setTimeout(() => {
    idle = null;
    if (!waiting.size && child) {
      child.disconnect();
      child = null;
    }
  }, IDLE_MS);
  idle.unref();
}

function ask(req: Omit<FaceRequest, 'id'>): Promise<FaceReply | null> {
  const id = nextId++;
  if (idle) clearTimeout(idle);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      if (!waiting.size) hold(child, false);
      resolve(null);
    }, ANSWER_MS);
    timer.unref();
    waiting.set(id, (reply) => {
      clearTimeout(timer);
      resolve(reply);
    });
    try {
      const proc = detector();
      hold(proc, true);
      proc.send({ ...req, id });
    } catch {
      waiting.delete(id);
      clearTimeout(timer);
      resolve(null);
    }
  });
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
    const { data, info } = await sharp(input, { failOn: 'none' })
      .rotate()
      .resize(PREVIEW_PX, PREVIEW_PX, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    preview = { data, width: info.width, height: info.height };
  } catch {
    return [];
  }
  return facesIn(preview);
}

/** The faces in an upright RGB preview (at most PREVIEW_PX on its longer side), largest first; null when the detector cannot run. */
export async function facesIn(preview: { data: Buffer; width: number; height: number }): Promise<Face[] | null> {
  const { data, width, height } = preview;
  const reply = await ask({ width, height, data: new Uint8Array(data.buffer, data.byteOffset, data.length), inputSize: PREVIEW_PX, minScore: MIN_SCORE });
  if (!reply?.faces) return null;
  return reply.faces
    .map(({ score, x, y, w, h }) => ({ score, x: x / width, y: y / height, w: w / width, h: h / height }))
    .sort((a, b) => b.w * b.h - a.w * a.h);
}
