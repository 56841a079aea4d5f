import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { errors } from '../../errors.js';
import { streamed } from '../../lib/stream-garbage.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { headerPixels } from '../../media-tools/image-info.js';
import { MAX_IMAGE_PIXELS } from '../../media-tools/sharp.js';
import { admit, kindOfMime, motionTooLong, MULTIPART_CEILING_BYTES, overStorage, tooLarge, tooManyPixels, type MediaKind, type PlanMediaRules } from './media-policy.js';
import { createMovieDurationReader } from './movie-duration.js';

// file-type is loaded with the first upload, not at start (it is a good share of the start's module loading).
let fileType: Promise<typeof import('file-type')> | undefined;
const sniff = async (head: Buffer) => (await (fileType ??= import('file-type'))).fileTypeFromBuffer(head);

/** Enough of the head of a file for file-type to recognise every format we take. */
const SNIFF_BYTES = 64 * 1024;

export interface IncomingFile {
  stream: Readable;
  filename: string | null;
  declaredType: string | null;
}

export interface IntakeResult {
  kind: MediaKind;
  mimeType: string;
  sizeBytes: number;
  sha256: string;
  /** Read from the file while it streamed (QuickTime motion on a live-photo-only plan); otherwise left to processing. */
  durationSeconds: number | null;
}

export interface IntakeOptions {
  store: ObjectStore;
  key: string;
  plan: PlanMediaRules;
  storage: { limitBytes: number; usedBytes: number };
  /** Called once the upload is admitted, right before its first byte goes to the store (to record the object as pending). */
  beforeStore(): Promise<void>;
  signal?: AbortSignal;
  /** Only these kinds are taken (the web form takes photos); anything else is refused like a type outside media. */
  kinds?: readonly MediaKind[];
}

/**
 * Streams one uploaded file into the store, deciding as the bytes pass:
 * the type from the first bytes (the declared type is advisory), the plan's
 * gates for that type, then the running count against the type's cap and the
 * book's storage left, and a live photo's duration. The first rule broken
 * stops the stream at once and the store removes what it had (a partial
 * object never stays). Memory holds one chunk at a time, plus the head.
 */
export async function intakeUpload(file: IncomingFile, o: IntakeOptions): Promise<IntakeResult> {
  const source = file.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const headChunks: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < SNIFF_BYTES) {
    const next = await source.next();
    if (next.done) {
      ended = true;
      break;
    }
    headChunks.push(next.value);
    headLength += next.value.length;
  }
  const head = Buffer.concat(headChunks);
  if (head.length === 0) throw errors.validation('The file is empty.', { field: 'file' });

  const mimeType = (await sniff(head))?.mime ?? 'application/octet-stream';
  if (o.kinds && !o.kinds.includes(kindOfMime(mimeType) as MediaKind)) {
    const only = o.kinds.length === 1 && o.kinds[0] === 'image' ? 'a photo (JPEG, PNG, HEIC, WebP…)' : o.kinds.join(', ');
    throw errors.validation(`That file is not ${only}: it looks like ${mimeType}.`, {
      field: 'file',
      detected_mime_type: mimeType,
      accepted: o.kinds.map((k) => `${k}/*`),
    });
  }
  const admission = admit(mimeType, o.plan);
  if (admission.kind === 'image') {
    // Decoded size from the header: a small file may hold gigabytes of pixels. A header not in the head is left to
    // the decoders, which refuse more than the limit too (media-tools/sharp.ts).
    const size = await headerPixels(head);
    if (size && size.pixels > MAX_IMAGE_PIXELS) throw tooManyPixels(size.width, size.height, MAX_IMAGE_PIXELS);
  }
  const capBytes = Math.min(admission.capBytes, MULTIPART_CEILING_BYTES);
  const storageLeft = o.storage.limitBytes - o.storage.usedBytes;
  const movie = admission.maxDurationSeconds !== null ? createMovieDurationReader() : null;
  const hash = createHash('sha256');
  let size = 0;

  // Every chunk passes here before it may go on to the store.
  const take = (chunk: Buffer) => {
    size += chunk.length;
    streamed(chunk.length); // frees the socket's dead buffers as the upload goes (see lib/stream-garbage.ts)
    if (size > capBytes) throw tooLarge(`${admission.kind === 'video' ? 'A' : 'An'} ${admission.kind} upload (${mimeType})`, capBytes, { kind: admission.kind, detected_mime_type: mimeType });
    if (size > storageLeft) throw overStorage(o.plan.planSlug, o.storage.limitBytes, o.storage.usedBytes);
    hash.update(chunk);
    if (movie) {
      movie.feed(chunk);
      const seconds = movie.seconds;
      if (seconds !== undefined && (seconds === null || seconds > admission.maxDurationSeconds!)) throw motionTooLong(seconds);
    }
  };

  take(head); // a head already over a cap is refused before anything is stored
  let refusal: unknown;
  async function* admitted() {
    try {
      yield head;
      while (!ended) {
        const next = await source.next();
        if (next.done) break;
        take(next.value);
        yield next.value;
      }
      if (movie) {
        const seconds = movie.end();
        if (seconds === null || seconds > admission.maxDurationSeconds!) throw motionTooLong(seconds);
      }
    } catch (err) {
      refusal = err;
      throw err;
    }
  }

  await o.beforeStore();
  try {
    await o.store.put(o.key, Readable.from(admitted(), { objectMode: false }), { contentType: mimeType, signal: o.signal });
  } catch (err) {
    throw refusal ?? err;
  }
  return { kind: admission.kind, mimeType, sizeBytes: size, sha256: hash.digest('hex'), durationSeconds: movie?.seconds ?? null };
}
