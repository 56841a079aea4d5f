import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Tx } from '../../db/client.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { recordMediaProcessed } from '../events/event-objects.js';
import { objectKeys, type MediaRow } from './media-types.js';
import {
  addBookStorage,
  completeProcessing,
  findMediaParents,
  findStuckProcessing,
  lockMediaDerivedBytes,
  lockMediaParents,
  setProcessingStatus,
  touchSubmission,
} from './media-repository.js';
import { extractPosterFrame, probeMedia } from '../../media-tools/ffmpeg.js';
import { findSubject, type SubjectFindings } from '../../media-tools/focal-crop.js';
import { readImageInfo } from '../../media-tools/image-info.js';
import type { VirusScanner } from '../../media-tools/virus-scanner.js';

interface Findings {
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  scanResult?: 'clean' | 'infected';
  scanSignature?: string | null;
  poster?: { key: string; sizeBytes: number };
  /** Where the subject of a photo (or of a video's poster frame) is; null when it could not be found. */
  subject: SubjectFindings | null;
}

/**
 * Media processing, run by the `media.process` job: pending → processing →
 * complete (or failed once retries are spent). Images get their displayed
 * dimensions and, when a scanner is configured, a virus scan; videos their
 * dimensions, duration and a poster frame (the thumbnail); audio its
 * duration. Photos and poster frames get where their subject is (their
 * faces, else their attention point), found here once so a printed book or
 * a cover crops around it without looking again. Safe to run again: a run that died half way starts over, and a
 * poster written by a run whose result was never recorded is overwritten.
 */
export function createMediaProcessing(deps: {
  db: Db;
  config: Config;
  store: ObjectStore;
  /** The virus scanner; null when none is configured. */
  scanner: VirusScanner | null;
  /** In the transaction that records a completed file (a book that transcribes voice notes on arrival queues it here). */
  onProcessed?: (tx: Tx, m: MediaRow) => Promise<void>;
}) {
  const { db, config, store } = deps;
  const { scanner } = deps;

  async function examine(m: MediaRow, file: string, signal: AbortSignal): Promise<Findings> {
    if (m.kind === 'image') {
      let info: { width: number | null; height: number | null } = await readImageInfo(file);
      if (info.width === null) {
        // Not one sharp or the header reader knows: ffprobe reads most other image formats.
        const probed = await probeMedia(file, { config, signal });
        info = { width: probed.width ?? null, height: probed.height ?? null };
      }
      const scan = scanner ? await scanner.scan(file, signal) : null;
      // An infected file is never printed: its subject is not looked for.
      const subject = scan?.result === 'infected' ? null : await findSubject(file);
      return {
        width: info.width ?? null,
        height: info.height ?? null,
        durationSeconds: null,
        ...(scan ? { scanResult: scan.result, scanSignature: scan.signature } : {}),
        subject,
      };
    }
    const probed = await probeMedia(file, { config, signal });
    const found: Findings = { width: probed.width ?? null, height: probed.height ?? null, durationSeconds: probed.durationSeconds ?? null, subject: null };
    if (m.kind === 'video') {
      const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-poster-'));
      try {
        const posterPath = path.join(dir, 'poster.jpg');
        await extractPosterFrame(file, posterPath, { config, signal });
        // The book prints the poster frame: its subject is the video's.
        found.subject = await findSubject(posterPath);
        const key = objectKeys.poster(m.book_id, m.id);
        const { sizeBytes } = await store.put(key, createReadStream(posterPath), { contentType: 'image/jpeg', signal });
        found.poster = { key, sizeBytes: sizeBytes ?? (await stat(posterPath)).size };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    return found;
  }

  /**
   * Moves a media file's processing status (from pending or processing),
   * with its submission's updated_at: the submission embeds its media, so its
   * ETag and updated_since follow them. Locks book, submission, media, the
   * order of every write in a book. Undefined when the file is gone or done.
   */
  async function setStatus(mediaId: string, status: 'processing' | 'failed', error: string | null, from: 'pending' | 'processing' | null = null): Promise<MediaRow | undefined> {
    return db.transaction(async (tx) => {
      const ids = await findMediaParents(tx, mediaId);
      if (!ids) return undefined;
      await lockMediaParents(tx, ids.book_id, ids.submission_id);
      const m = await setProcessingStatus(tx, mediaId, status, error, from ? [from] : ['pending', 'processing']);
      if (m) await touchSubmission(tx, ids.submission_id);
      if (m && status === 'failed') await recordMediaProcessed(tx, store, mediaId);
      return m;
    });
  }

  return {
    /** One run of the job. `lastAttempt`: a failure now is final (status failed) instead of a retry. */
    async process(mediaId: string, o: { signal: AbortSignal; lastAttempt: boolean; log?: FastifyBaseLogger }): Promise<void> {
      const m = await setStatus(mediaId, 'processing', null);
      if (!m) return; // deleted meanwhile, or already finished
      try {
        const copy = await store.localCopy(m.storage_key, { signal: o.signal });
        let findings: Findings;
        try {
          findings = await examine(m, copy.path, o.signal);
        } finally {
          await copy.release();
        }
        await this.record(m, findings);
      } catch (err) {
        if (!o.lastAttempt) throw err;
        o.log?.warn({ err, media: mediaId }, 'media processing failed for good');
        await setStatus(mediaId, 'failed', String((err as Error).message ?? err).slice(0, 500));
      }
    },

    /**
     * Media whose processing stopped without an outcome (its worker died on
     * the last attempt) would stay `processing` for ever, holding approval
     * back: after `olderThanSeconds` it is marked failed.
     */
    async failStuck(olderThanSeconds: number): Promise<number> {
      const stuck = await findStuckProcessing(db, olderThanSeconds);
      for (const id of stuck) await setStatus(id, 'failed', 'Processing did not finish.', 'processing');
      return stuck.length;
    },

    /** Writes what processing found, with the book's storage counter and the submission's updated_at, in one transaction. */
    async record(m: MediaRow, f: Findings): Promise<void> {
      const stillThere = await db.transaction(async (tx) => {
        // Lock order of every write in a book: book, submission, media.
        await lockMediaParents(tx, m.book_id, m.submission_id);
        const before = await lockMediaDerivedBytes(tx, m.id);
        if (before === undefined) return false;
        const derived = f.poster?.sizeBytes ?? 0;
        await completeProcessing(tx, m.id, {
          width: f.width,
          height: f.height,
          durationSeconds: f.durationSeconds,
          thumbnailKey: f.poster?.key ?? null,
          derivedBytes: derived,
          scanResult: f.scanResult ?? null,
          scanSignature: f.scanSignature ?? null,
          subject: f.subject,
        });
        const delta = derived - before;
        if (delta) await addBookStorage(tx, m.book_id, delta);
        // The submission embeds its media: its representation changed.
        await touchSubmission(tx, m.submission_id);
        await recordMediaProcessed(tx, store, m.id);
        await deps.onProcessed?.(tx, m);
        return true;
      });
      // Deleted while it was processed: its poster has no row to be cleaned up with.
      if (!stillThere && f.poster) await store.delete(f.poster.key);
    },
  };
}
export type MediaProcessing = ReturnType<typeof createMediaProcessing>;
