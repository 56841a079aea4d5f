import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rmdir, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config/config.js';
import { attachmentDisposition } from './content-disposition.js';
import { assertObjectKey, checkRange, ObjectNotFoundError, SigningError, type ObjectStore } from './object-store.js';
import { deriveFileSigningKey, signLocalUrl, verifyLocalUrl, type LocalUrlCheck } from './local-url-signer.js';

export interface LocalObjectStoreOptions {
  /** DATA_DIR: objects live in `<dataDir>/objects/<key>`. */
  dataDir: string;
  /** SECRET_KEY; URLs are signed under a key derived from it. */
  secretKey: string;
  /** PUBLIC_URL without a trailing slash: signed URLs point at `<publicUrl>/files/<key>`. */
  publicUrl: string;
}

/** The local driver, plus what the `/files/*` route needs to serve its signed URLs. */
export interface LocalObjectStore extends ObjectStore {
  readonly kind: 'local';
  /** `<dataDir>/objects`. */
  readonly root: string;
  /** Where the object's bytes are on disk (whether or not it exists). */
  pathOf(key: string): string;
  /** Checks a `/files/<key>` request's query string (without `?`); see local-url-signer.ts. */
  verifyUrl(key: string, rawQuery: string, now?: Date): LocalUrlCheck;
}

/** Staged uploads older than this are left over from a crash and swept. */
const STALE_STAGING_MS = 24 * 60 * 60 * 1000;
/** A put writes the body in batches of about this size, one writev each, rather than a call per network chunk. */
const WRITE_BATCH_BYTES = 1024 * 1024;
/** Every this many bytes written, a put starts flushing them to disk while the rest still arrives. */
const SYNC_EVERY_BYTES = 4 * 1024 * 1024;

export function localStoreOptions(config: Config): LocalObjectStoreOptions {
  return { dataDir: config.dataDir, secretKey: config.secretKey, publicUrl: config.http.publicUrl };
}

/**
 * Files under `<dataDir>/objects/<key>`. A put streams into
 * `objects/.staging/` (same filesystem), fsyncs, then renames into place, so
 * a reader sees the whole object or none, even after a crash (the flushing
 * keeps pace with the upload: see DurableFileSink); the content type lives
 * in a sidecar `objects/.meta/<key>.json`, renamed into place just before the
 * object. The dot-directories cannot collide with keys (no key segment starts
 * with a dot).
 */
export function createLocalObjectStore(options: LocalObjectStoreOptions): LocalObjectStore {
  const root = path.resolve(options.dataDir, 'objects');
  const staging = path.join(root, '.staging');
  const metaRoot = path.join(root, '.meta');
  const signingKey = deriveFileSigningKey(options.secretKey);
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  let swept = false;

  const pathOf = (key: string) => {
    assertObjectKey(key);
    return path.join(root, ...key.split('/'));
  };
  const metaPathOf = (key: string) => path.join(metaRoot, ...`${key}.json`.split('/'));
  /** Staging files of a put start with this, so what an interrupted put left can be found by its key. */
  const stagingTagOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 32);

  async function sweepStaging(): Promise<void> {
    if (swept) return;
    swept = true;
    const names = await readdir(staging).catch(() => [] as string[]);
    const cutoff = Date.now() - STALE_STAGING_MS;
    for (const name of names) {
      const file = path.join(staging, name);
      const s = await stat(file).catch(() => null);
      if (s && s.mtimeMs < cutoff) await unlinkQuietly(file);
    }
  }

  /**
   * Renames into a directory a concurrent delete may be pruning: recreate it and retry. The recursive
   * mkdir itself can meet ENOENT when a parent it just made is pruned before its child is made.
   */
  async function renameInto(from: string, to: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(path.dirname(to), { recursive: true });
        await rename(from, to);
        return;
      } catch (err) {
        if (errnoOf(err) !== 'ENOENT' || attempt >= 5) throw err;
      }
    }
  }

  /** Removes now-empty directories from `dir` up to (not including) `top`; a racing put may refill one, so failures are fine. */
  async function pruneEmptyDirs(dir: string, top: string): Promise<void> {
    while (dir.startsWith(top + path.sep)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
      dir = path.dirname(dir);
    }
  }

  async function readMeta(key: string): Promise<{ contentType: string | null }> {
    try {
      const meta = JSON.parse(await readFile(metaPathOf(key), 'utf8')) as { contentType?: unknown };
      return { contentType: typeof meta.contentType === 'string' ? meta.contentType : null };
    } catch {
      return { contentType: null };
    }
  }

  return {
    kind: 'local',
    root,
    pathOf,

    async put(key, body, { contentType, signal }) {
      const id = `${stagingTagOf(key)}.${randomUUID()}`;
      const tmp = path.join(staging, `${id}.object`);
      const tmpMeta = path.join(staging, `${id}.meta`);
      let placedMeta: string | null = null;
      let sizeBytes = 0;
      try {
        const target = pathOf(key);
        signal?.throwIfAborted();
        await mkdir(staging, { recursive: true });
        await sweepStaging();
        sizeBytes = await writeDurably(tmp, body, signal);
        await writeFile(tmpMeta, JSON.stringify({ contentType, sizeBytes }), { flag: 'wx', mode: 0o640, flush: true });
        signal?.throwIfAborted();
        const metaPath = metaPathOf(key);
        await renameInto(tmpMeta, metaPath);
        placedMeta = metaPath;
        await renameInto(tmp, target);
        placedMeta = null;
        // Both renames made durable (on most filesystems one commit covers both).
        await Promise.all([fsyncDir(path.dirname(target)), fsyncDir(path.dirname(metaPath))]);
        return { sizeBytes };
      } catch (err) {
        body.destroy();
        // Cleanup must not mask the error that caused it.
        await Promise.allSettled([unlinkQuietly(tmp), unlinkQuietly(tmpMeta), placedMeta ? unlinkQuietly(placedMeta) : null]);
        throw err;
      }
    },

    async get(key, range) {
      const file = pathOf(key);
      const handle = await open(file, 'r').catch((err) => {
        throw errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR' || errnoOf(err) === 'EISDIR' ? new ObjectNotFoundError(key) : err;
      });
      try {
        const s = await handle.stat();
        if (!s.isFile()) throw new ObjectNotFoundError(key);
        if (!range) return handle.createReadStream();
        const { start, end } = checkRange(range, s.size);
        return handle.createReadStream({ start, end });
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async head(key) {
      const s = await stat(pathOf(key)).catch((err) => {
        if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return null;
        throw err;
      });
      if (!s || !s.isFile()) return null;
      return { sizeBytes: s.size, contentType: (await readMeta(key)).contentType };
    },

    async delete(key) {
      const file = pathOf(key);
      await unlinkQuietly(file);
      await unlinkQuietly(metaPathOf(key));
      await pruneEmptyDirs(path.dirname(file), root);
      await pruneEmptyDirs(path.dirname(metaPathOf(key)), metaRoot);
    },

    async discardInterrupted(key) {
      assertObjectKey(key);
      const tag = `${stagingTagOf(key)}.`;
      const names = await readdir(staging).catch(() => [] as string[]);
      for (const name of names) if (name.startsWith(tag)) await unlinkQuietly(path.join(staging, name));
    },

    async signedUrl(key, { ttlSeconds, downloadName, contentType, now = new Date() }) {
      assertObjectKey(key);
      let signed: { query: string; expiresAt: Date };
      try {
        signed = signLocalUrl(signingKey, key, {
          ttlSeconds,
          now,
          contentDisposition: downloadName === undefined ? undefined : attachmentDisposition(downloadName, contentType),
          contentType,
        });
      } catch (err) {
        if (err instanceof RangeError) throw err;
        throw new SigningError('Could not sign the file URL', { cause: err });
      }
      return { url: `${publicUrl}/files/${key}?${signed.query}`, expiresAt: signed.expiresAt };
    },

    verifyUrl(key, rawQuery, now = new Date()) {
      return verifyLocalUrl(signingKey, key, rawQuery, now);
    },

    async localCopy(key, options = {}) {
      options.signal?.throwIfAborted();
      const file = pathOf(key);
      const s = await stat(file).catch(() => null);
      if (!s || !s.isFile()) throw new ObjectNotFoundError(key);
      // The file itself: nothing to remove afterwards.
      return { path: file, release: async () => {} };
    },

    async close() {},
  };
}

/**
 * Streams `body` into a new file at `file` and makes it durable, resolving
 * with the bytes written once they are all on disk (the caller may then
 * rename the file into place).
 */
async function writeDurably(file: string, body: Readable, signal: AbortSignal | undefined): Promise<number> {
  const handle = await open(file, 'wx', 0o640);
  const sink = new DurableFileSink(handle);
  try {
    await pipeline(body, sink, { signal });
    return sink.sizeBytes;
  } finally {
    await sink.settled(); // never close the file under a write or a flush still in flight
    await handle.close();
  }
}

/**
 * Writes into an open file in batches, one writev each, with one batch on
 * its way while the next fills; every SYNC_EVERY_BYTES an fdatasync starts
 * in the background (one at a time), so the disk writes the object while it
 * still arrives and the closing fsync (in final) finds only the tail left to
 * flush, rather than the whole upload at the end.
 */
class DurableFileSink extends Writable {
  sizeBytes = 0;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private writing: Promise<void> | undefined;
  private syncing: Promise<void> | undefined;
  private unsynced = 0;
  private failure: { error: Error } | undefined;

  constructor(private readonly handle: FileHandle) {
    super();
  }

  /** Resolves once no write or flush is in flight (a finished write may start a flush: wait until both stay put). */
  async settled(): Promise<void> {
    for (;;) {
      const { writing, syncing } = this;
      await writing;
      await syncing;
      if (writing === this.writing && syncing === this.syncing) return;
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.failure) return callback(this.failure.error);
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    this.sizeBytes += chunk.length;
    if (this.batchBytes < WRITE_BATCH_BYTES) return callback();
    // A full batch goes once the one before is through: that wait is what holds the body back.
    const send = () => {
      if (this.failure) return callback(this.failure.error);
      if (this.destroyed) return callback(); // the put failed meanwhile: nothing more goes to the file
      this.writing = this.writeBatch();
      callback();
    };
    if (this.writing) void this.writing.then(send);
    else send();
  }

  override _final(callback: (error?: Error | null) => void): void {
    const finish = async () => {
      await this.writing;
      if (this.batch.length > 0 && !this.failure) await this.writeBatch();
      await this.syncing;
      if (this.failure) throw this.failure.error;
      await this.handle.sync();
    };
    finish().then(() => callback(), callback);
  }

  /** Never rejects: a failure is kept and reported by the next write or by final. */
  private writeBatch(): Promise<void> {
    const buffers = this.batch;
    const bytes = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    return writeAll(this.handle, buffers).then(() => {
      this.unsynced += bytes;
      if (this.unsynced >= SYNC_EVERY_BYTES && !this.syncing && !this.failure) {
        this.unsynced = 0;
        this.syncing = this.handle.datasync().then(() => {
          this.syncing = undefined;
        }, this.fail);
      }
    }, this.fail);
  }

  private readonly fail = (error: unknown) => {
    this.failure ??= { error: error instanceof Error ? error : new Error(String(error)) };
  };
}

/** writev until every byte is written (a regular file may take less than asked, e.g. near a full disk). */
async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let pending = buffers;
  while (pending.length > 0) {
    let { bytesWritten } = await handle.writev(pending);
    if (bytesWritten === 0 && pending.some((b) => b.length > 0)) throw new Error(`The file took none of ${pending.length} buffers`);
    let i = 0;
    while (i < pending.length && bytesWritten >= pending[i].length) bytesWritten -= pending[i++].length;
    pending = pending.slice(i);
    if (bytesWritten > 0) pending[0] = pending[0].subarray(bytesWritten);
  }
}

async function unlinkQuietly(file: string): Promise<void> {
  await unlink(file).catch((err) => {
    if (errnoOf(err) !== 'ENOENT') throw err;
  });
}

/** Makes a rename durable: the directory entry itself is flushed (best effort; not every filesystem allows it). */
async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => null);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    /* e.g. EINVAL on filesystems without directory fsync */
  } finally {
    await handle.close();
  }
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}
