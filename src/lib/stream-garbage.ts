import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Frees the buffers of a big stream as it passes, not tens of MB later.
 *
 * Every socket read of an upload lands in a fresh 64 KiB buffer outside the
 * JS heap. V8 frees such a buffer only when a collection of the young
 * generation finds it dead, and a stream makes so little garbage on the heap
 * that none comes for a long time: dead buffers pile up until V8's
 * external-memory limit forces a collection, and then full mark-compacts.
 * Measured on a 90 MB upload (`npm run bench -- media`): peak RSS growth of
 * 35–38 MB, the same as a bare Node pipe's, and half the upload's CPU spent
 * on those collections. A young-generation collection (a scavenge: a few ms
 * at most) every STREAM_BYTES_PER_COLLECTION streamed, counted across all
 * streams, keeps the pile to that size: peak growth 18 MB, CPU 450 → 245 ms.
 *
 * The collector is V8's own `gc` function, taken from a fresh context after
 * turning on --expose-gc for that moment (the flag goes off again at once, so
 * no other code sees `gc`); with --expose-gc at start, the global one. Node
 * keeps V8's flags writable after start (it runs V8 with
 * --no-freeze-flags-after-init, so v8.setFlagsFromString works on 20 and
 * later); where it cannot be had, uploads simply go at V8's own pace.
 * A forced scavenge may move a few short-lived objects of requests in flight
 * to the old generation early: one per 8 MB uploaded, against the several
 * per MB of allocation a busy API makes by itself.
 */
const STREAM_BYTES_PER_COLLECTION = 8 * 1024 * 1024;

type Collector = (options: { type: 'minor' }) => void;
let collector: Collector | null | undefined;
let streamedSinceCollection = 0;

function youngCollector(): Collector | null {
  if (collector !== undefined) return collector;
  const global = (globalThis as { gc?: Collector }).gc;
  if (typeof global === 'function') return (collector = global);
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    collector = typeof gc === 'function' ? (gc as Collector) : null;
  } catch {
    collector = null; // a runtime without it: the buffers go at V8's own pace
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  return collector;
}

/** Counts bytes of a big stream that have passed; every few MB, collects the young generation. */
export function streamed(bytes: number): void {
  streamedSinceCollection += bytes;
  if (streamedSinceCollection < STREAM_BYTES_PER_COLLECTION) return;
  streamedSinceCollection = 0;
  youngCollector()?.({ type: 'minor' });
}
