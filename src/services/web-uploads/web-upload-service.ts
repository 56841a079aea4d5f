import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Queryable } from '../../db/client.js';
import { errors } from '../../errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import { createUploadParts, UPLOAD_EXPIRY_SECONDS, type UploadParts } from '../../storage/upload-parts.js';
import { findOpenChannelBook } from '../channels/channel-service.js';
import type { MediaService, StagedUpload } from '../media/media-service.js';
import { kindOfMime, MULTIPART_CEILING_BYTES, overStorage, PHOTO_CAP_BYTES, type MediaKind } from '../media/media-policy.js';
import { findSubmission } from '../submissions/submission-repository.js';
import { bindUpload, deleteExpiredTickets, findTicketByToken, findTicketByUpload, insertTicket, markFinished, unbindUpload, type UploadField } from './web-upload-repository.js';

export type { UploadField };
export { UPLOAD_EXPIRY_SECONDS };

/** What each field of the form takes, and the most a declared length may be (the intake's per-type caps apply to the bytes). */
export const UPLOAD_FIELDS: Record<UploadField, { kinds: readonly MediaKind[]; capBytes: number }> = {
  photo: { kinds: ['image'], capBytes: PHOTO_CAP_BYTES },
  media: { kinds: ['audio', 'video'], capBytes: MULTIPART_CEILING_BYTES },
};

const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
const tokenHash = (token: string) => sha256(token).toString('hex');

/**
 * Resumable uploads from a book's web form (tus). The form's words are saved
 * first (SubmissionService.createWebSubmission) and, in the same transaction,
 * one ticket per file the page will send (issueTickets): an unguessable token
 * the page hands to the upload it creates (begin), binding that upload to the
 * memory. The parts go to the configured store (storage/upload-parts.ts); the
 * finished file is read back through the same intake as every upload (type
 * from the bytes, 100 MP, the plan's gates and caps, storage left, the virus
 * scan queued with processing) and attached in one transaction that also
 * marks the ticket finished, so a file is attached once however often its
 * last part is retried. Tickets live UPLOAD_EXPIRY_SECONDS; the sweep removes
 * them and what their unfinished uploads left in the store.
 */
export function createWebUploadService(deps: { db: Db; config: Config; media: MediaService; log?: Pick<FastifyBaseLogger, 'warn'> }) {
  const { db, media } = deps;
  let parts: Promise<UploadParts> | undefined;
  // The stores load with the first upload (the S3 one brings the AWS SDK), not at start.
  const uploadParts = () =>
    (parts ??= createUploadParts(deps.config).catch((err) => {
      parts = undefined;
      throw err;
    }));

  async function openBook(q: Queryable, slug: string, lock: 'update' | null = null) {
    const ctx = await findOpenChannelBook(q, slug, 'web', lock);
    if (!ctx) throw errors.notFound('book');
    return ctx;
  }

  const removeQuietly = async (uploadId: string) => {
    try {
      await (await uploadParts()).remove(uploadId);
    } catch (err) {
      deps.log?.warn({ err, upload_id: uploadId }, 'could not remove the parts of an upload (the sweep tries again)');
    }
  };

  return {
    uploadParts,

    /** One token per file the page will send, for a memory just saved (in its transaction). */
    async issueTickets(q: Queryable, bookId: string, submissionId: string, fields: readonly UploadField[]): Promise<{ field: UploadField; token: string }[]> {
      const out: { field: UploadField; token: string }[] = [];
      for (const field of fields) {
        const token = randomToken(32);
        await insertTicket(q, { id: uuidv7(), tokenHash: tokenHash(token), bookId, submissionId, field, expiresInSeconds: UPLOAD_EXPIRY_SECONDS });
        out.push({ field, token });
      }
      return out;
    },

    /**
     * A new upload for a ticket (the tus creation request): the book still
     * takes memories over the web, the ticket is this book's, live and not
     * finished, and the declared length fits the field's cap and the book's
     * storage left. A type declared by the browser outside the field's kinds
     * is refused now; the bytes decide at the end. An upload the ticket had
     * before is replaced, its parts removed.
     */
    async begin(slug: string, token: unknown, uploadId: string, o: { length: number | undefined; declaredType: string | null }): Promise<UploadField> {
      if (typeof token !== 'string' || !TOKEN_RE.test(token)) throw errors.notFound('upload');
      const replaced = await db.transaction(async (tx) => {
        const ctx = await openBook(tx, slug);
        const ticket = await findTicketByToken(tx, ctx.book.id, tokenHash(token), { forUpdate: true });
        if (!ticket || ticket.finished_at) throw errors.notFound('upload');
        const rule = UPLOAD_FIELDS[ticket.field];
        if (o.length === undefined) throw errors.validation('The upload must declare its length (Upload-Length).', { field: 'file', reason: 'length_required' });
        if (o.length > rule.capBytes) throw errors.payloadTooLarge('The file is too large.', { limit_bytes: rule.capBytes, length: o.length });
        const declaredKind = o.declaredType ? kindOfMime(o.declaredType) : null;
        if (o.declaredType && (!declaredKind || !rule.kinds.includes(declaredKind))) {
          throw errors.validation(`That file is not ${ticket.field === 'photo' ? 'a photo' : 'a voice note or video'}: it says it is ${o.declaredType}.`, {
            field: 'file',
            declared_mime_type: o.declaredType,
            accepted: rule.kinds.map((k) => `${k}/*`),
          });
        }
        const limit = Number(ctx.planLimits.storage_bytes_per_book);
        const used = Number(ctx.book.storage_used_bytes);
        if (used + o.length > limit) throw overStorage(ctx.book.plan_slug, limit, used);
        await bindUpload(tx, ticket.id, uploadId, o.length);
        return { previous: ticket.upload_id, field: ticket.field };
      });
      if (replaced.previous && replaced.previous !== uploadId) await removeQuietly(replaced.previous);
      return replaced.field;
    },

    /**
     * The ticket an upload belongs to, for its HEAD, PATCH and DELETE: this
     * book's, live. Not found otherwise, like an upload that never was.
     */
    async ticketOf(slug: string, uploadId: string): Promise<{ field: UploadField; finished: boolean; length: number | null }> {
      const ctx = await openBook(db, slug);
      const ticket = await findTicketByUpload(db, ctx.book.id, uploadId);
      if (!ticket) throw errors.notFound('upload');
      return { field: ticket.field, finished: ticket.finished_at !== null, length: ticket.upload_length === null ? null : Number(ticket.upload_length) };
    },

    /**
     * The last part is in: the file is read back from the parts through the
     * intake into the object store and attached to the ticket's memory (its
     * media list grows; the memory stays pending, as it was), the ticket
     * marked finished in the same transaction. A refusal (not a photo, too
     * many pixels, no room) throws the intake's error; the parts are removed
     * either way, so a retry starts a fresh upload. Already finished: nothing
     * to do.
     */
    async finish(slug: string, uploadId: string, file: { filename: string | null; declaredType: string | null }): Promise<{ mediaId: string | null }> {
      const ctx0 = await openBook(db, slug);
      const ticket0 = await findTicketByUpload(db, ctx0.book.id, uploadId);
      if (!ticket0) throw errors.notFound('upload');
      if (ticket0.finished_at) return { mediaId: null };
      let staged: StagedUpload | undefined;
      try {
        const stream = await (await uploadParts()).read(uploadId);
        staged = await media.stageWebPhoto(slug, { stream, filename: file.filename, declaredType: file.declaredType }, UPLOAD_FIELDS[ticket0.field].kinds);
        const done = staged;
        const attached = await db.transaction(async (tx) => {
          const ctx = await openBook(tx, slug, 'update');
          const ticket = await findTicketByUpload(tx, ctx.book.id, uploadId, { forUpdate: true });
          if (!ticket) throw errors.notFound('upload');
          if (ticket.finished_at) return false;
          const submission = ticket.submission_id && (await findSubmission(tx, ctx.book.id, ticket.submission_id, { forUpdate: true }));
          if (!submission) throw errors.notFound('submission');
          await media.attachStaged(tx, ctx, submission, done, null);
          await media.recordSubmissionUpdated(tx, ctx, submission.id);
          await markFinished(tx, ticket.id, done.mediaId);
          return true;
        });
        if (!attached) {
          await media.discardStaged(done);
          return { mediaId: null };
        }
        staged = undefined;
        return { mediaId: done.mediaId };
      } catch (err) {
        // Refused or failed: the ticket lets go of this upload, so a resumed HEAD finds nothing and a new upload starts.
        await unbindUpload(db, uploadId).catch(() => {});
        throw err;
      } finally {
        if (staged) await media.discardStaged(staged).catch((err) => deps.log?.warn({ err }, 'could not discard a staged upload'));
        await removeQuietly(uploadId);
      }
    },

    /**
     * Housekeeping: tickets past their expiry or whose memory was deleted go,
     * with the parts of their unfinished uploads; on disk, also parts past the
     * expiry that no ticket knows (a book purged mid-upload).
     */
    async sweep(): Promise<number> {
      const unfinished = await deleteExpiredTickets(db);
      for (const id of unfinished) await removeQuietly(id);
      const orphans = await (await uploadParts()).removeExpiredOrphans();
      return unfinished.length + orphans;
    },
  };
}
export type WebUploadService = ReturnType<typeof createWebUploadService>;
