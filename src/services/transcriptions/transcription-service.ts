import { setTimeout } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { AppError, errors } from '../../errors.js';
import { stoppedByWorker, type JobSender } from '../../jobs/job-catalog.js';
import { etagOf, ifMatchPasses } from '../../lib/etag.js';
import { isUuid } from '../../lib/ids.js';
import { MediaToolError } from '../../media-tools/ffmpeg.js';
import { extractAudioTrack, languageCode, TranscriptionProviderError, type Transcriber } from '../../media-tools/transcriber.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import type { BookContext } from '../books/book-types.js';
import { recordEvent } from '../events/record-event.js';
import { findMedia, findMediaParents } from '../media/media-reads.js';
import type { MediaRow } from '../media/media-types.js';
import {
  awaitRetry,
  completeTranscription,
  editTranscription,
  failTranscription,
  findAutoTranscription,
  findBookSettings,
  findStuckTranscriptions,
  findTranscription,
  requestTranscription,
  startAttempt,
  type TranscriptionRow,
} from './transcription-repository.js';

/** The transcription resource, as GET …/transcription/ answers it and its events carry it. */
export function toTranscription(t: TranscriptionRow) {
  return {
    media_id: t.media_id,
    submission_id: t.submission_id,
    status: t.status,
    language: t.language,
    text: t.edited_text ?? t.text,
    segments: t.segments,
    edited: t.edited_text !== null,
    failure_reason: t.status === 'failed' ? t.failure_reason : null,
    etag: etagOf(t.updated_at),
    created_at: t.created_at,
    completed_at: t.completed_at,
  };
}
export type TranscriptionJson = ReturnType<typeof toTranscription>;

/** What an export shows of a transcript (completed ones carry text; others their status). */
export function transcriptForExport(t: TranscriptionRow) {
  return { status: t.status, language: t.language, text: t.edited_text ?? t.text ?? '', segments: t.segments, edited: t.edited_text !== null };
}

/** The longest an owner's correction may be (a long recording's transcript fits many times over). */
export const TRANSCRIPT_MAX_CHARS = 200_000;

/** The most a provider's Retry-After may hold a run back. */
const MAX_RETRY_WAIT_SECONDS = 3600;

const TRANSCRIBABLE = new Set(['audio', 'video']);

function notAudio(m: MediaRow): AppError {
  return errors.validation(`Only audio and video can be transcribed; this file is ${m.kind === 'image' ? 'an image' : `a ${m.kind} file`}.`, {
    field: 'media_id',
    reason: 'not_audio',
    value: m.kind,
  });
}

/** The book's language for transcripts: settings.language (an ISO 639-1 code such as "de"), else null (the provider detects it). */
export function bookLanguage(settings: Record<string, unknown> | null | undefined): string | null {
  const v = settings?.language;
  return typeof v === 'string' ? languageCode(v) : null;
}

/** A media file of one submission of this book (404 otherwise), with its ETag. */
function mediaOf(submissionId: string, mediaId: string) {
  return async (ctx: BookContext, q: Queryable) => {
    if (!isUuid(submissionId) || !isUuid(mediaId)) throw errors.notFound('media');
    const row = await findMedia(q, ctx.book.id, submissionId, mediaId);
    if (!row) throw errors.notFound('media');
    return { value: row, etag: etagOf(row.updated_at) };
  };
}

/**
 * Transcription on request (contract decisions, "Added for the fourth
 * wave"). A request records the row and queues `transcription.run` in one
 * transaction; the run streams the recording (a video's audio track) to the
 * provider and records the transcript, or, on a provider failure, queues
 * the next run after a backoff (the provider's Retry-After when longer), up
 * to TRANSCRIPTION_MAX_ATTEMPTS, then fails with a reason. Each outcome is
 * an event (transcription.completed / transcription.failed) in the
 * transaction that records it.
 */
export function createTranscriptionService(deps: { db: Db; config: Config; access: BookAccess; store: ObjectStore; queue: JobSender; transcriber: Transcriber | null }) {
  const { db, config, access, store } = deps;
  /** The provider; null when transcription is not configured (every path checks config.transcription first). */
  const provider = () => {
    if (!deps.transcriber) throw new Error('transcription is not configured');
    return deps.transcriber;
  };


  /** Records the request and queues the run (in `tx`). Undefined when one exists already (answered as it is). */
  async function start(tx: Tx, m: Pick<MediaRow, 'id' | 'book_id' | 'submission_id'>, requestedBy: string | null): Promise<TranscriptionRow | undefined> {
    const row = await requestTranscription(tx, { mediaId: m.id, bookId: m.book_id, submissionId: m.submission_id, requestedBy });
    if (row) await deps.queue.send('transcription.run', { mediaId: m.id }, { tx });
    return row;
  }

  async function outcome(mediaId: string, write: (tx: Tx) => Promise<TranscriptionRow | undefined>, event: 'transcription.completed' | 'transcription.failed' | null) {
    return db.transaction(async (tx) => {
      const row = await write(tx);
      if (row && event) await recordEvent(tx, event, row.book_id, toTranscription(row));
      return row;
    });
  }

  return {
    /**
     * POST …/transcription/: 202 with a new (or failed-and-asked-again)
     * transcription, 200 with the one under way or done.
     */
    async request(tx: Tx, actor: Actor, slug: string, submissionId: string, mediaId: string): Promise<{ created: boolean; transcription: TranscriptionJson }> {
      const { target: media } = await access.requireBookAccess(actor, slug, 'request_transcription', { tx, target: mediaOf(submissionId, mediaId) });
      if (!TRANSCRIBABLE.has(media.kind)) throw notAudio(media);
      if (!config.transcription) throw errors.transcriptionUnavailable('Transcription is not configured on this server.');
      const started = await start(tx, media, actor.id);
      if (started) return { created: true, transcription: toTranscription(started) };
      const existing = await findTranscription(tx, media.id);
      if (!existing) throw new Error('transcription vanished while it was requested');
      return { created: false, transcription: toTranscription(existing) };
    },

    async get(actor: Actor, slug: string, submissionId: string, mediaId: string): Promise<TranscriptionJson> {
      const { target: media } = await access.requireBookAccess(actor, slug, 'read_transcription', { target: mediaOf(submissionId, mediaId) });
      const row = await findTranscription(db, media.id);
      if (!row) throw errors.notFound('transcription');
      return toTranscription(row);
    },

    /** PATCH {text}: the owner's correction, kept when the transcript is made again; If-Match against the transcription's ETag. */
    async edit(tx: Tx, actor: Actor, slug: string, submissionId: string, mediaId: string, text: string, ifMatch: string | undefined): Promise<TranscriptionJson> {
      const { target: media } = await access.requireBookAccess(actor, slug, 'edit_transcription', { tx, lock: 'update', target: mediaOf(submissionId, mediaId) });
      const row = await findTranscription(tx, media.id, { forUpdate: true });
      if (!row) throw errors.notFound('transcription');
      if (!ifMatchPasses(ifMatch, etagOf(row.updated_at))) throw errors.preconditionFailed(etagOf(row.updated_at));
      if (row.status !== 'completed') {
        throw errors.invalidState(`A transcript can be corrected once it is completed; this one is ${row.status}.`, {
          status: row.status,
          action: 'edit',
          allowed_from: ['completed'],
        });
      }
      const trimmed = text.trim();
      if (!trimmed) throw errors.validation('The transcript text must not be blank.', { field: 'text' });
      if ((row.edited_text ?? row.text) === trimmed) return toTranscription(row);
      const edited = await editTranscription(tx, media.id, trimmed);
      return toTranscription(edited!);
    },

    /**
     * For media processing, in its transaction: a book with
     * settings.transcribe_automatically gets every voice note and video
     * transcribed on arrival, when its plan includes the feature and
     * transcription is configured.
     */
    async onMediaProcessed(tx: Tx, m: Pick<MediaRow, 'id' | 'book_id' | 'submission_id' | 'kind'>): Promise<void> {
      if (!config.transcription || !TRANSCRIBABLE.has(m.kind)) return;
      const book = await findAutoTranscription(tx, m.book_id);
      if (book?.auto && !book.gated && !(await findTranscription(tx, m.id))) await start(tx, m, null);
    },

    /** One run of the `transcription.run` job. */
    async run(mediaId: string, o: { signal: AbortSignal; lastAttempt: boolean; log?: FastifyBaseLogger }): Promise<string> {
      const claimed = await db.transaction(async (tx) => {
        const row = await startAttempt(tx, mediaId);
        if (!row) return undefined;
        const ids = await findMediaParents(tx, mediaId);
        const media = ids && (await findMedia(tx, ids.book_id, ids.submission_id, mediaId));
        const book = await findBookSettings(tx, row.book_id);
        return { row, media, language: bookLanguage(book?.settings) };
      });
      if (!claimed) return 'nothing to do';
      const { row, media, language } = claimed;
      if (!media) return 'media gone';
      if (!config.transcription) {
        await outcome(mediaId, (tx) => failTranscription(tx, mediaId, 'Transcription is no longer configured on this server.'), 'transcription.failed');
        return 'failed: not configured';
      }
      try {
        const transcript = await transcribe(media, language, o.signal);
        await outcome(mediaId, (tx) => completeTranscription(tx, mediaId, transcript), 'transcription.completed');
        return 'completed';
      } catch (err) {
        if (stoppedByWorker(o.signal)) throw err;
        if (err instanceof TranscriptionProviderError) {
          const max = config.transcription.maxAttempts;
          if (err.retryable && row.attempts < max) {
            const backoff = config.transcription.retrySeconds * 2 ** (row.attempts - 1);
            const wait = Math.min(MAX_RETRY_WAIT_SECONDS, Math.max(err.retryAfterSeconds ?? 0, backoff));
            await db.transaction(async (tx) => {
              if (await awaitRetry(tx, mediaId, `The transcription provider failed (${err.message}); trying again.`)) {
                await deps.queue.send('transcription.run', { mediaId }, { tx, startAfterSeconds: wait });
              }
            });
            o.log?.warn({ media: mediaId, status: err.status, attempt: row.attempts, retry_in_seconds: wait }, 'transcription provider failed; will retry');
            return `retry in ${wait}s`;
          }
          const reason = err.retryable ? `The transcription provider kept failing (${row.attempts} attempts; last: ${err.message}).` : `The transcription provider refused the recording (${err.message}).`;
          await outcome(mediaId, (tx) => failTranscription(tx, mediaId, reason.slice(0, 500)), 'transcription.failed');
          return 'failed';
        }
        if (err instanceof MediaToolError || (err as Error)?.message?.startsWith('ffmpeg could not')) {
          await outcome(mediaId, (tx) => failTranscription(tx, mediaId, `The recording's sound could not be read: ${(err as Error).message}`.slice(0, 500)), 'transcription.failed');
          return 'failed: unreadable';
        }
        if (!o.lastAttempt) throw err; // the store or the database: the queue runs it again
        await outcome(mediaId, (tx) => failTranscription(tx, mediaId, 'The transcription could not be made.'), 'transcription.failed');
        return 'failed: gave up';
      }
    },

    /** Runs whose worker died on the last attempt would stay processing for ever: after `olderThanSeconds` they are failed, with the event. */
    async failStuck(olderThanSeconds: number): Promise<number> {
      const stuck = await findStuckTranscriptions(db, olderThanSeconds);
      for (const id of stuck) await outcome(id, (tx) => failTranscription(tx, id, 'The transcription did not finish.'), 'transcription.failed');
      return stuck.length;
    },
  };

  /** The recording (a video's audio track) streamed to the provider. */
  async function transcribe(media: MediaRow, language: string | null, signal: AbortSignal) {
    const base = (media.original_filename ?? 'recording').replace(/\.[^.]*$/, '') || 'recording';
    if (media.kind === 'audio') {
      const audio = await store.get(media.storage_key);
      try {
        return await provider().transcribe({ audio, filename: `${base}.${extensionOf(media.mime_type)}`, contentType: media.mime_type, language, signal });
      } finally {
        audio.destroy();
      }
    }
    const copy = await store.localCopy(media.storage_key, { signal });
    try {
      const track = await extractAudioTrack(copy.path, { config, signal });
      try {
        const transcript = await provider().transcribe({ audio: track.audio, filename: `${base}.${track.extension}`, contentType: track.contentType, language, signal });
        await track.done;
        return transcript;
      } catch (err) {
        // ffmpeg's own failure (no audio track) explains a provider's complaint about an empty file better.
        const ffmpegFailure = await Promise.race([track.done.then(() => null, (e: unknown) => e), setTimeout(200).then(() => null)]);
        track.audio.destroy();
        throw ffmpegFailure ?? err;
      }
    } finally {
      await copy.release();
    }
  }
}
export type TranscriptionService = ReturnType<typeof createTranscriptionService>;

function extensionOf(mime: string): string {
  const known: Record<string, string> = {
    'audio/mpeg': 'mp3',
    'audio/mp4': 'm4a',
    'audio/x-m4a': 'm4a',
    'audio/aac': 'aac',
    'audio/wav': 'wav',
    'audio/x-wav': 'wav',
    'audio/wave': 'wav',
    'audio/ogg': 'ogg',
    'audio/opus': 'ogg',
    'audio/webm': 'webm',
    'audio/flac': 'flac',
    'audio/x-flac': 'flac',
    'audio/amr': 'amr',
  };
  return known[mime] ?? mime.split('/')[1]?.replace(/[^a-z0-9]/g, '') ?? 'audio';
}
