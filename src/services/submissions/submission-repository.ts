import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import { keysetCondition, orderBy, type SortKey } from '../../http/lists.js';
import type { ModerationMove } from './moderation.js';
import type { SubmissionInput, SubmissionRow } from './submission-types.js';

/** Every query names `s` (submissions) and `u` (the author, left-joined). */
const COLUMNS = `s.id, s.book_id, s.contributor_user_id, s.contributor_name, s.contributor_email, s.text_content, s.is_private,
  s.status, s.is_pinned, s.pinned_at, s.rejection_reason, s.share_card_key, s.source, s.created_at, s.updated_at,
  u.first_name AS contributor_first_name, u.last_name AS contributor_last_name`;
const FROM = `submissions s LEFT JOIN users u ON u.id = s.contributor_user_id`;

/** Re-reads a written row (a CTE named `s`) with its author joined in. */
const withAuthor = (cte: string) => `WITH s AS (${cte}) SELECT ${COLUMNS} FROM s LEFT JOIN users u ON u.id = s.contributor_user_id`;

export interface BookLock {
  id: string;
  slug: string;
  title: string;
  plan_slug: string;
  /** The plan's cap; null = none. */
  max_approved_submissions_per_book: number | null;
}

/**
 * Locks the book row for the rest of the transaction. Every submission write
 * takes it first, so writes in one book run one after another: the approve
 * cap counts under it, and the lock order (book, then submission) is the
 * same everywhere, so two writers never deadlock.
 */
export function lockBook(q: Queryable, bookId: string) {
  return one<BookLock>(
    q,
    `SELECT b.id, b.slug, b.title, b.plan_slug, p.max_approved_submissions_per_book
     FROM books b JOIN plans p ON p.slug = b.plan_slug
     WHERE b.id = $1 AND b.deleted_at IS NULL FOR UPDATE OF b`,
    [bookId],
  );
}

/** books_sort=activity; never moves backwards when an older transaction commits later. */
export async function touchBookActivity(q: Queryable, bookId: string) {
  await q.query(`UPDATE books SET last_activity_at = now() WHERE id = $1 AND last_activity_at < now()`, [bookId]);
}

export async function insertSubmission(
  q: Queryable,
  s: { id: string; bookId: string; contributorUserId: string | null; contributorName: string | null; contributorEmail: string | null; textContent: string; isPrivate: boolean; source: string },
): Promise<SubmissionRow> {
  const row = await one<SubmissionRow>(
    q,
    withAuthor(
      `INSERT INTO submissions (id, book_id, contributor_user_id, contributor_name, contributor_email, text_content, is_private, source)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    ),
    [s.id, s.bookId, s.contributorUserId, s.contributorName, s.contributorEmail, s.textContent, s.isPrivate, s.source],
  );
  return row!;
}

/**
 * One submission of one book; another book's id is simply not found. With
 * `authorId` only a row that user wrote is found (a contributor sees nothing else).
 */
export function findSubmission(q: Queryable, bookId: string, id: string, o: { authorId?: string; forUpdate?: boolean } = {}) {
  const params: unknown[] = [bookId, id];
  let where = `s.book_id = $1 AND s.id = $2`;
  if (o.authorId !== undefined) {
    params.push(o.authorId);
    where += ` AND s.contributor_user_id = $3`;
  }
  return one<SubmissionRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where}${o.forUpdate ? ' FOR UPDATE OF s' : ''}`, params);
}

/** A page of a book's submissions in one keyset ordering (limit + 1 rows, to learn has_more). */
export function listSubmissionsOfBook(q: Queryable, bookId: string, o: { updatedSince: string | null; keys: SortKey[]; after: unknown[] | null; limit: number }) {
  const params: unknown[] = [bookId];
  const where = [`s.book_id = $1`];
  if (o.updatedSince) {
    params.push(o.updatedSince);
    where.push(`s.updated_at >= $${params.length}::timestamptz`);
  }
  if (o.after) {
    const k = keysetCondition(o.keys, o.after, params.length + 1);
    params.push(...k.params);
    where.push(k.sql);
  }
  params.push(o.limit + 1);
  return q.query<SubmissionRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${where.join(' AND ')} ORDER BY ${orderBy(o.keys)} LIMIT $${params.length}`, params);
}

/**
 * Writes changed fields and, when the edit moves moderation (an author's
 * edit of an approved row), the new state in the same statement.
 */
export async function updateSubmission(q: Queryable, bookId: string, id: string, patch: SubmissionInput, move: ModerationMove | null): Promise<SubmissionRow> {
  const params: unknown[] = [bookId, id];
  const sets: string[] = [];
  for (const k of ['text_content', 'contributor_name', 'is_private'] as const) {
    if (patch[k] === undefined) continue;
    params.push(patch[k]);
    sets.push(`${k} = $${params.length}`);
  }
  if (move?.changed) sets.push(...moveSets(move, params));
  const row = await one<SubmissionRow>(
    q,
    withAuthor(`UPDATE submissions SET ${sets.join(', ')} WHERE book_id = $1 AND id = $2 RETURNING *`),
    params,
  );
  return row!;
}

/**
 * Applies a moderation move. `rejectionReason`: a string or null to set it,
 * undefined to leave it (only reject sets one; approve clears it).
 */
export async function applyModerationMove(q: Queryable, bookId: string, id: string, move: ModerationMove, rejectionReason?: string | null): Promise<SubmissionRow> {
  const params: unknown[] = [bookId, id];
  const sets = moveSets(move, params);
  if (rejectionReason !== undefined) {
    params.push(rejectionReason);
    sets.push(`rejection_reason = $${params.length}`);
  }
  const row = await one<SubmissionRow>(q, withAuthor(`UPDATE submissions SET ${sets.join(', ')} WHERE book_id = $1 AND id = $2 RETURNING *`), params);
  return row!;
}

function moveSets(move: ModerationMove, params: unknown[]): string[] {
  params.push(move.next.status, move.next.isPinned);
  const [status, pinned] = [params.length - 1, params.length];
  const sets = [
    `status = $${status}`,
    `is_pinned = $${pinned}`,
    // pinned_at keeps its value while the pin stays, is set when it starts, cleared when it ends.
    `pinned_at = CASE WHEN $${pinned}::boolean THEN COALESCE(pinned_at, now()) ELSE NULL END`,
  ];
  if (move.clearShareCard) sets.push(`share_card_key = NULL`);
  return sets;
}

/** Deletes one row of the book; false when there was none. */
export async function deleteSubmission(q: Queryable, bookId: string, id: string): Promise<boolean> {
  const rows = await q.query(`DELETE FROM submissions WHERE book_id = $1 AND id = $2 RETURNING id`, [bookId, id]);
  return rows.length > 0;
}

export async function countApproved(q: Queryable, bookId: string): Promise<number> {
  const [{ n }] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions WHERE book_id = $1 AND status = 'approved'`, [bookId]);
  return n;
}
