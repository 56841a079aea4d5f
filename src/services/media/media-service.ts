import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { etagOf } from '../../lib/etag.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import { isoMicro } from '../../lib/time.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import { dropCoverAmong } from '../books/cover-writes.js';
import type { BookContext } from '../books/book-types.js';
import { findOpenChannelBook, type Channel } from '../channels/channel-service.js';
import { nextModerationState } from '../submissions/moderation.js';
import { recordSubmissionUpdated as recordSubmissionEvent } from '../events/event-objects.js';
import { applyMediaChange, findSubmission, touchBookActivity } from '../submissions/submission-reads.js';
import type { SubmissionRow } from '../submissions/submission-types.js';
import { overStorage, type MediaKind, type PlanMediaRules } from './media-policy.js';
import {
  addBookStorage,
  claimStalePendingObjects,
  deleteMedia,
  findBookFileKeys,
  findMedia,
  findSubmissionFiles,
  forgetPendingObject,
  insertMedia,
  recordPendingObject,
} from './media-repository.js';
import * as media from './media-repository.js';
import { objectKeys, type MediaRow } from './media-types.js';
import type { MediaViews } from './media-views.js';
import { intakeUpload, type IncomingFile, type IntakeResult } from './upload-intake.js';

/** An upload streamed into the store, not yet attached: its object is recorded in pending_objects until it is. */
export interface StagedUpload extends IntakeResult {
  mediaId: string;
  key: string;
  filename: string | null;
  declaredType: string | null;
}

/** Objects go to the delete job in batches of this many. */
const DELETE_BATCH = 200;

const planRules = (ctx: BookContext): PlanMediaRules => ({
  planSlug: ctx.book.plan_slug,
  features: ctx.planFeatures,
  maxVideoBytes: Number(ctx.planLimits.max_video_bytes),
});

/** A submission a media route names, of this book; for a contributor it must be their own (else 403, the book being visible to them). */
function submissionOf(actor: Actor, id: string, forUpdate: boolean) {
  return async (ctx: BookContext, q: Queryable) => {
    if (!isUuid(id)) throw errors.notFound('submission');
    const row = await findSubmission(q, ctx.book.id, id, { forUpdate });
    if (!row) throw errors.notFound('submission');
    if (ctx.role === 'contributor' && row.contributor_user_id !== actor.id) throw errors.insufficientRole('owner or admin');
    return { value: row, etag: etagOf(row.updated_at) };
  };
}

/** A media file of one submission of this book; any other id is simply not found. */
function mediaOf(submissionId: string, mediaId: string, forUpdate: boolean) {
  return async (ctx: BookContext, q: Queryable) => {
    if (!isUuid(submissionId) || !isUuid(mediaId)) throw errors.notFound('media');
    const row = await findMedia(q, ctx.book.id, submissionId, mediaId, { forUpdate });
    if (!row) throw errors.notFound('media');
    return { value: row, etag: etagOf(row.updated_at) };
  };
}

/**
 * Media of submissions. An upload streams into the store before anything
 * is written to the database (stageUpload), so no transaction or connection
 * is held while bytes arrive; attachUpload then records it in one short
 * transaction — the media row, the submission's moderation reset, the book's
 * storage counter and the processing job — under the book's lock, the same
 * lock order (book, submission, media) as every other write in a book.
 */
export function createMediaService(deps: { db: Db; config: Config; access: BookAccess; store: ObjectStore; views: MediaViews; queue: JobSender; log?: FastifyBaseLogger }) {
  const { db, access, store, views } = deps;


  /** Queues removal of stored objects (in the caller's transaction, so they go only if the change commits). */
  async function deleteObjectsLater(q: Tx, keys: (string | null | undefined)[]) {
    const real = [...new Set(keys.filter((k): k is string => Boolean(k)))];
    for (let i = 0; i < real.length; i += DELETE_BATCH) {
      await deps.queue.send('storage.delete-objects', { keys: real.slice(i, i + DELETE_BATCH) }, { tx: q });
    }
  }

  /**
   * The media change's effect on its submission: approved goes back to
   * pending (unpinned, share card dropped and its file queued for removal);
   * otherwise the submission still moves its updated_at, since it embeds
   * its media.
   */
  async function mediaChanged(q: Tx, ctx: BookContext, submission: SubmissionRow): Promise<void> {
    const move = nextModerationState({ status: submission.status, isPinned: submission.is_pinned }, 'media_change');
    await applyMediaChange(q, ctx.book.id, submission.id, move);
    if (move.clearShareCard) await deleteObjectsLater(q, [submission.share_card_key]);
    await touchBookActivity(q, ctx.book.id);
  }

  /** submission.updated after a file was added to or removed from an existing memory (its media list changes, an approved one goes back to pending). */
  async function recordSubmissionUpdated(q: Tx, ctx: BookContext, submissionId: string): Promise<void> {
    await recordSubmissionEvent(q, store, ctx.book, submissionId);
  }

  async function forgetPending(key: string) {
    await forgetPendingObject(db, key);
  }

  /**
   * Streams the file into the store under a new media id, with every
   * check that can be made while it arrives (type, plan gates, caps,
   * storage left, live-photo duration). Runs outside any transaction.
   * On a refusal nothing is left in the store or the database.
   */
  async function stageInto(ctx: BookContext, file: IncomingFile, kinds?: readonly MediaKind[]): Promise<StagedUpload> {
    const mediaId = uuidv7();
    const key = objectKeys.original(ctx.book.id, mediaId);
    let recorded = false;
    try {
      const result = await intakeUpload(file, {
        store,
        key,
        plan: planRules(ctx),
        storage: { limitBytes: Number(ctx.planLimits.storage_bytes_per_book), usedBytes: Number(ctx.book.storage_used_bytes) },
        kinds,
        beforeStore: async () => {
          // Recorded before the first byte is stored: if this process dies mid-upload, the sweep removes the object.
          await recordPendingObject(db, key);
          recorded = true;
        },
      });
      return { ...result, mediaId, key, filename: file.filename, declaredType: file.declaredType };
    } catch (err) {
      if (recorded) await forgetPending(key).catch(() => {});
      throw err;
    }
  }

  /**
   * Records a staged upload as a media file of `submission`, in the caller's
   * transaction, which holds the book's row lock: the media row, the book's
   * storage counter (checked again here, since two uploads may have streamed
   * side by side), the submission's moderation reset and the processing job.
   * `uploadedBy` is null for a photo sent through the public web form.
   */
  async function attachStaged(tx: Tx, ctx: BookContext, submission: SubmissionRow, staged: StagedUpload, uploadedBy: string | null): Promise<MediaRow> {
    const limit = Number(ctx.planLimits.storage_bytes_per_book);
    const used = Number(ctx.book.storage_used_bytes);
    if (used + staged.sizeBytes > limit) throw overStorage(ctx.book.plan_slug, limit, used);
    const scanResult = staged.kind === 'image' ? (deps.config.media.clamav ? 'pending' : 'not_scanned') : 'skipped_by_policy';
    const row = await insertMedia(tx, {
      id: staged.mediaId,
      submissionId: submission.id,
      bookId: ctx.book.id,
      uploadedBy,
      kind: staged.kind,
      mimeType: staged.mimeType,
      declaredMimeType: staged.declaredType,
      originalFilename: staged.filename,
      sizeBytes: staged.sizeBytes,
      sha256: staged.sha256,
      storageKey: staged.key,
      durationSeconds: staged.durationSeconds,
      scanResult,
    });
    await addBookStorage(tx, ctx.book.id, staged.sizeBytes);
    await mediaChanged(tx, ctx, submission);
    // The row takes the object over. Gone already means the sweep removed it (an upload that outlived every timeout).
    if (!(await media.takePendingObject(tx, staged.key))) throw errors.requestTimeout('The upload took too long and was discarded; send it again.', null, { transient: true });
    await deps.queue.send('media.process', { mediaId: staged.mediaId }, { tx });
    return row;
  }

  return {
    /** A file for a submission the actor may add media to, streamed into the store (see stageInto); not attached yet. */
    async stageUpload(actor: Actor, slug: string, submissionId: string, file: IncomingFile): Promise<StagedUpload> {
      const { ctx } = await access.requireBookAccess(actor, slug, 'upload_own_media', { target: submissionOf(actor, submissionId, false) });
      return stageInto(ctx, file);
    },

    /**
     * A photo uploaded as the book's cover (PUT /books/{slug}/cover/): owner or
     * admin (the book's `update`), the same intake as every upload (type from
     * the bytes, 100 MP cap, photo cap, storage left); only images. Not
     * attached: the cover service records it (covers/cover-service.ts).
     */
    async stageCover(actor: Actor, slug: string, file: IncomingFile): Promise<StagedUpload & { ctx: BookContext }> {
      const { ctx } = await access.requireBookAccess(actor, slug, 'update');
      return { ...(await stageInto(ctx, file, ['image'])), ctx };
    },

    /**
     * The photo of a memory sent through a book's public web form: no one
     * signed in, so the book itself must take memories over the web channel
     * now (else 404). Streamed in like stageUpload, with the same type
     * detection, caps, plan gates and storage check; only images are taken,
     * unless `kinds` says otherwise (a voice note or video sent resumably).
     */
    async stageWebPhoto(slug: string, file: IncomingFile, kinds: readonly MediaKind[] = ['image']): Promise<StagedUpload> {
      const ctx = await findOpenChannelBook(db, slug, 'web');
      if (!ctx) throw errors.notFound('book');
      return stageInto(ctx, file, kinds);
    },

    /**
     * A file that came with a memory over a message channel (an email
     * attachment, an MMS, Telegram or WhatsApp photo, voice note or video):
     * the book must take memories over that channel now (else 404). The same
     * intake as stageUpload (type from the bytes, plan gates, caps, storage
     * left); photos, audio and video. Attach it with attachStaged in the
     * transaction that records the memory (uploadedBy: the linked user or null).
     */
    async stageChannelFile(slug: string, channel: Channel, file: IncomingFile): Promise<StagedUpload> {
      const ctx = await findOpenChannelBook(db, slug, channel);
      if (!ctx) throw errors.notFound('book');
      return stageInto(ctx, file);
    },

    /** Removes a staged upload that will not be attached (refused later, or answered by a replay). */
    async discardStaged(staged: StagedUpload): Promise<void> {
      await store.delete(staged.key);
      await forgetPending(staged.key);
    },

    /** Attaches a staged upload to its submission, in `tx`: 201's media. */
    async attachUpload(tx: Tx, actor: Actor, slug: string, submissionId: string, staged: StagedUpload) {
      const { ctx, target: submission } = await access.requireBookAccess(actor, slug, 'upload_own_media', {
        tx,
        lock: 'update',
        target: submissionOf(actor, submissionId, true),
      });
      const media = await attachStaged(tx, ctx, submission, staged, actor.id);
      await recordSubmissionUpdated(tx, ctx, submission.id);
      return views.toMedia(media);
    },

    attachStaged,
    recordSubmissionUpdated,

    /** Owners and admins read a media file with freshly signed URLs. */
    async getMedia(actor: Actor, slug: string, submissionId: string, mediaId: string) {
      const { target } = await access.requireBookAccess(actor, slug, 'read_media', { target: mediaOf(submissionId, mediaId, false) });
      return views.toMedia(target);
    },

    /**
     * GET …/media/{media_id}/original/: a signed URL to the bytes exactly as
     * uploaded, with their sha256. Every file keeps them: the upload is stored
     * as it came under storage_key and nothing in the pipeline rewrites that
     * object (a video's poster frame is an object of its own). Owner and
     * admin; a contributor for their own memory's media (another's: 403). A
     * file still waiting for its scan: 409 invalid_state; one found infected,
     * or whose object is gone from the store: 410 original_unavailable.
     */
    async getOriginal(actor: Actor, slug: string, submissionId: string, mediaId: string) {
      const { target: m } = await access.requireBookAccess(actor, slug, 'read_original', {
        target: async (c, q) => {
          const found = await mediaOf(submissionId, mediaId, false)(c, q);
          if (c.role === 'contributor') {
            const parent = await findSubmission(q, c.book.id, submissionId);
            if (parent?.contributor_user_id !== actor.id) throw errors.insufficientRole('owner or admin');
          }
          return found;
        },
      });
      if (m.scan_result === 'infected') {
        throw errors.originalUnavailable('The original of this file is not available: it was found infected and is never handed out.', { reason: 'infected', media_id: m.id });
      }
      if (m.scan_result === 'pending') {
        throw errors.invalidState('The file is still waiting for its virus scan; ask again once scan_result is no longer pending.', {
          status: 'pending',
          action: 'download_original',
          allowed_from: ['clean', 'not_scanned', 'skipped_by_policy'],
        });
      }
      if (!(await store.head(m.storage_key))) {
        throw errors.originalUnavailable('The original of this file is no longer in the store.', { reason: 'missing', media_id: m.id });
      }
      const filename = m.original_filename || `media-${m.id}.${m.mime_type.split('/')[1] ?? 'bin'}`;
      const signed = await views.sign(m.storage_key, { contentType: m.mime_type, downloadName: filename });
      if (!signed) {
        // Retry-After, as the 502 documents: the store may sign again in a moment.
        throw errors.storageUnavailable('The file store could not sign a download URL; try again shortly.', null, { headers: { 'retry-after': '1' }, transient: true });
      }
      return {
        url: signed.url,
        expires_at: isoMicro(signed.expiresAt),
        filename,
        content_type: m.mime_type,
        size_bytes: Number(m.size_bytes),
        sha256: m.sha256,
      };
    },

    /** Detaches and removes a media file: the submission goes back to pending if approved, its files are removed in the background. */
    async deleteMedia(tx: Tx, actor: Actor, slug: string, submissionId: string, mediaId: string): Promise<void> {
      const { ctx } = await access.requireBookAccess(actor, slug, 'delete_media', { tx, lock: 'update', target: mediaOf(submissionId, mediaId, false) });
      const submission = await findSubmission(tx, ctx.book.id, submissionId, { forUpdate: true });
      const gone = await deleteMedia(tx, ctx.book.id, mediaId);
      if (!submission || !gone) throw errors.notFound('media');
      // The book's cover, when this photo was it, returns to the automatic choice (its ETag moves, book.updated).
      await dropCoverAmong(tx, store, deps.queue, ctx.book.id, [gone.id]);
      await addBookStorage(tx, ctx.book.id, -(Number(gone.size_bytes) + Number(gone.derived_bytes)));
      await mediaChanged(tx, ctx, submission);
      await recordSubmissionUpdated(tx, ctx, submission.id);
      await deleteObjectsLater(tx, [gone.storage_key, gone.thumbnail_key]);
    },

    /**
     * For a submission about to be deleted (in the caller's transaction,
     * book locked): gives back its media's storage and queues removal of
     * every file it has, the share card included. The rows go with the
     * submission (foreign key).
     */
    async releaseSubmissionFiles(q: Tx, bookId: string, submission: Pick<SubmissionRow, 'id' | 'share_card_key'>): Promise<void> {
      const rows = await findSubmissionFiles(q, submission.id);
      await dropCoverAmong(q, store, deps.queue, bookId, rows.map((r) => r.id));
      const bytes = rows.reduce((n, r) => n + Number(r.bytes), 0);
      if (bytes) await addBookStorage(q, bookId, -bytes);
      await deleteObjectsLater(q, [...rows.flatMap((r) => [r.storage_key, r.thumbnail_key]), submission.share_card_key]);
    },

    /** For a book being purged (in its transaction): queues removal of every file of the book. */
    async releaseBookFiles(q: Tx, bookId: string): Promise<void> {
      await deleteObjectsLater(q, await findBookFileKeys(q, bookId));
    },

    /** The delete job: removes stored objects; a missing one is already gone. */
    async deleteObjects(keys: string[]): Promise<void> {
      for (const key of keys) await store.delete(key);
    },

    /**
     * Objects whose upload never reached its database row (the process died
     * mid-upload, or its transaction failed): removed, then forgotten.
     */
    async sweepPendingObjects(olderThanSeconds: number): Promise<number> {
      // Claimed in one short statement, removed after: no transaction stays open while the store works.
      const stale = await claimStalePendingObjects(db, olderThanSeconds);
      for (const key of stale) {
        await store.delete(key);
        await store.discardInterrupted(key); // the bytes of a put cut off by a crash: a staging file, an open multipart upload
        await forgetPending(key);
      }
      return stale.length;
    },
  };
}
export type MediaService = ReturnType<typeof createMediaService>;

/**
 * Takes a staged upload's object over for a row recorded in `q` (another
 * domain's, such as a book's uploaded cover): false when the sweep removed it
 * already (an upload that outlived every timeout).
 */
export function takePendingObject(q: Queryable, key: string): Promise<boolean> {
  return media.takePendingObject(q, key);
}

/**
 * Records an object key about to be written outside any upload (an inbound
 * mail's spool), so the sweep removes it if its writer dies before a row
 * takes it over (takePendingObject); `forgetPendingKey` drops the record once
 * the object is gone again.
 */
export function recordPendingKey(q: Queryable, key: string): Promise<void> {
  return media.recordPendingObject(q, key);
}

export function forgetPendingKey(q: Queryable, key: string): Promise<void> {
  return media.forgetPendingObject(q, key);
}
