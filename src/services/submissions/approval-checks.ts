import type { Queryable } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { BookContext } from '../books/book-types.js';
import { countApproved } from './submission-repository.js';

/**
 * Approve needs every attached media file processed and not infected (400
 * validation_failed otherwise, naming the files that hold it back).
 */
export async function assertMediaReady(tx: Queryable, submissionId: string): Promise<void> {
  const blocking = await tx.query<{ id: string; processing_status: string; scan_result: string | null }>(
    `SELECT id, processing_status, scan_result FROM media
     WHERE submission_id = $1 AND (processing_status <> 'complete' OR scan_result = 'infected')
     ORDER BY id`,
    [submissionId],
  );
  if (blocking.length) {
    throw errors.validation('Every attached media file must be processed and clean before the submission can be approved.', {
      media: blocking.map((m) => ({ id: m.id, processing_status: m.processing_status, scan_result: m.scan_result })),
    });
  }
}

/**
 * The plan's max_approved_submissions_per_book (null = none). Counted inside
 * the caller's transaction with the book row locked (requireBookAccess with lock 'update'), so two
 * concurrent approvals cannot both take the last place.
 */
export async function assertApprovalCap(tx: Queryable, ctx: BookContext): Promise<void> {
  const cap = ctx.planLimits.max_approved_submissions_per_book;
  if (cap === null) return;
  const approved = await countApproved(tx, ctx.book.id);
  if (approved >= cap) {
    throw errors.planLimitExceeded(`The ${ctx.book.plan_slug} plan allows ${cap} approved memories per book; reject or delete one, or move the book to a larger plan.`, {
      plan: ctx.book.plan_slug,
      limit: cap,
      approved,
    });
  }
}
