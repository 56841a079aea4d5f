import type { Config } from '../../config/config.js';
import type { Db, Tx } from '../../db/client.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { recordEvent } from '../events/record-event.js';
import { createBackupEraser } from './backup-eraser.js';
import { deleteBookRow, findDeletedAt, listOwedDeletions, lockDeletedBook, markBookDeleted, markDeletionRequested } from './book-repository.js';

export type BookDeletion = ReturnType<typeof createBookDeletion>;

export type DeletionOutcome = { state: 'deleted' } | { state: 'queued'; retryAfterSeconds: number };

/** What the operator's endpoint answered for a book's off-site backups (asked with no transaction open). */
export interface BackupErasure {
  erased: boolean;
}

/** How long a client should wait before asking again while erasure is pending. */
export const DELETION_RETRY_AFTER_SECONDS = 30;

/**
 * Book deletion. Backup erasure comes first because once a book answers 404
 * the owner has no way to learn that a copy survives: while the operator's
 * erasure endpoint is unreachable the book keeps answering and the queue
 * keeps trying; once erasure is confirmed the book is gone (404) and the
 * cascade of rows, files and counters runs in the background.
 */
export function createBookDeletion(deps: {
  db: Db;
  config: Pick<Config, 'backupErasureUrl' | 'backupErasureRetrySeconds'>;
  queue: JobSender;
  /** Queues removal of the book's stored files, in the purge's transaction. */
  releaseBookFiles?: (q: Tx, bookId: string) => Promise<void>;
  /** Ends what the book was paying for (its Stripe subscription), in the transaction that deletes it. */
  onDeleted?: (tx: Tx, bookId: string) => Promise<void>;
}) {
  const { db } = deps;
  const eraser = createBackupEraser(deps.config);


  /** Marks the book deleted (404 from now on) and queues the purge, in `tx`. */
  async function finalize(tx: Tx, bookId: string): Promise<boolean> {
    const deleted = await markBookDeleted(tx, bookId);
    if (deleted) {
      await deps.queue.send('book.purge', { bookId }, { tx });
      await deps.onDeleted?.(tx, bookId);
      await recordEvent(tx, 'book.deleted', bookId, { slug: deleted.slug });
    }
    return deleted !== undefined;
  }

  /** The deletion recorded as requested and its erase-backup job queued, in `tx` (the job waits `startAfterSeconds`). */
  async function queueDeletion(tx: Tx, bookId: string, startAfterSeconds: number): Promise<void> {
    await markDeletionRequested(tx, bookId, true);
    const retry = deps.config.backupErasureRetrySeconds;
    await deps.queue.send('book.erase-backup', { bookId }, { tx, startAfterSeconds, retryDelaySeconds: retry });
  }

  return {
    /**
     * Phase one of a deletion. First a recovery point, committed on its own:
     * the deletion is recorded as requested and the erase-backup job queued
     * to start after the retry delay, so whatever happens to the request
     * from here (a crash, a client gone), the queue finishes the deletion
     * the owner asked for. Then the operator's endpoint, called with no
     * transaction or connection held (it may take 5 s). Asking twice is
     * harmless, so the job, or a retry, simply asks again.
     */
    async eraseBackups(bookId: string): Promise<BackupErasure> {
      await db.transaction((tx) => queueDeletion(tx, bookId, deps.config.backupErasureRetrySeconds));
      return { erased: await eraser.erase({ kind: 'book', id: bookId }) };
    },

    /**
     * A deletion with no request behind it (an account's purge), in `tx`:
     * recorded as requested, and the erase-backup job (erasure, then the
     * book's deletion and purge) queued to start at once.
     */
    async queueDeletion(tx: Tx, bookId: string): Promise<void> {
      await queueDeletion(tx, bookId, 0);
    },

    /**
     * Phase two, in the caller's `tx`: erased, the book is deleted and its
     * purge queued; not yet, the deletion is recorded as requested and the
     * erase-backup job retries the endpoint.
     */
    async recordDeletion(tx: Tx, bookId: string, erasure: BackupErasure): Promise<DeletionOutcome> {
      if (erasure.erased) {
        await finalize(tx, bookId);
        return { state: 'deleted' };
      }
      await markDeletionRequested(tx, bookId, false);
      await deps.queue.send('book.erase-backup', { bookId }, { tx, retryDelaySeconds: deps.config.backupErasureRetrySeconds });
      return { state: 'queued', retryAfterSeconds: DELETION_RETRY_AFTER_SECONDS };
    },

    /** The erase-backup job: true once erasure is confirmed and the book finalised (or already gone). The endpoint is called with no transaction open. */
    async completeErasure(bookId: string): Promise<boolean> {
      const book = await findDeletedAt(db, bookId);
      if (!book || book.deleted_at) return true;
      if (!(await eraser.erase({ kind: 'book', id: bookId }))) return false;
      await db.transaction((tx) => finalize(tx, bookId));
      return true;
    },

    /**
     * The sweep (hourly, see the catalog's schedules): queues the erasure of
     * every book whose deletion still waits for it, and the purge of every
     * book deleted over an hour ago whose rows are still there, unless a job
     * for it is pending. This is what retries an erasure for as long as the
     * endpoint refuses, and a purge that gave up.
     */
    async resumeOwed(): Promise<{ erasures: number; purges: number }> {
      const owed = await listOwedDeletions(db);
      let erasures = 0;
      let purges = 0;
      for (const b of owed) {
        if (b.erased) {
          if (await deps.queue.send('book.purge', { bookId: b.id }, { unlessPending: true })) purges++;
        } else if (await deps.queue.send('book.erase-backup', { bookId: b.id }, { unlessPending: true, retryDelaySeconds: deps.config.backupErasureRetrySeconds })) {
          erasures++;
        }
      }
      return { erasures, purges };
    },

    /**
     * The cascade. Rows go with the book through foreign keys (members,
     * billing, submissions, media and what hangs off them); its stored files
     * (originals, poster frames, share cards) are queued for removal in the
     * same transaction.
     */
    async purge(bookId: string): Promise<void> {
      await db.transaction(async (tx) => {
        if (!(await lockDeletedBook(tx, bookId))) return; // already purged, or not deleted: nothing to do
        await deps.releaseBookFiles?.(tx, bookId);
        await deleteBookRow(tx, bookId);
      });
    },
  };
}
