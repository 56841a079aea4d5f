import type { Queryable } from '../../db/client.js';
import { one, sharedQuery } from '../../db/client.js';
import type { SortKey } from '../../db/pagination.js';
import type { ModerationMove } from './moderation.js';
import { submissionJsonSql } from './submission-mapper.js';
import { MAX_EMAIL_TRIMMED_PART_LENGTH, type EmailTrimmed, type SubmissionInput, type SubmissionRow } from './submission-types.js';

/** Every query names `s` (submissions) and `u` (the author, left-joined). */
const COLUMNS = `s.id, s.book_id, s.contributor_user_id, s.contributor_name, s.contributor_email, s.text_content, s.is_private,
  s.status, s.is_pinned, s.pinned_at, s.rejection_reason, s.share_card_key, s.share_card_token, s.source, s.email_trimmed, s.created_at, s.updated_at,
  u.first_name AS contributor_first_name, u.last_name AS contributor_last_name`;
const FROM = `submissions s LEFT JOIN users u ON u.id = s.contributor_user_id`;

/** Re-reads a written row (a CTE named `s`) with its author joined in. */
const withAuthor = (cte: string) => `WITH s AS (${cte}) SELECT ${COLUMNS} FROM s LEFT JOIN users u ON u.id = s.contributor_user_id`;

/** books_sort=activity; never moves backwards when an older transaction commits later. */
export async function touchBookActivity(q: Queryable, bookId: string) {
  await q.query(`UPDATE books SET last_activity_at = now() WHERE id = $1 AND last_activity_at < now()`, [bookId]);
}

export async function insertSubmission(
  q: Queryable,
  s: { id: string; bookId: string; contributorUserId: string | null; contributorName: string | null; contributorEmail: string | null; textContent: string; isPrivate: boolean; source: string; emailTrimmed?: EmailTrimmed | null },
): Promise<SubmissionRow> {
  const trimmed = s.emailTrimmed
    ? JSON.stringify({
        quoted: s.emailTrimmed.quoted?.slice(0, MAX_EMAIL_TRIMMED_PART_LENGTH) ?? null,
        signature: s.emailTrimmed.signature?.slice(0, MAX_EMAIL_TRIMMED_PART_LENGTH) ?? null,
        forward_header: s.emailTrimmed.forward_header?.slice(0, MAX_EMAIL_TRIMMED_PART_LENGTH) ?? null,
      })
    : null;
  const row = await one<SubmissionRow>(
    q,
    withAuthor(
      `INSERT INTO submissions (id, book_id, contributor_user_id, contributor_name, contributor_email, text_content, is_private, source, email_trimmed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::json) RETURNING *`,
    ),
    [s.id, s.bookId, s.contributorUserId, s.contributorName, s.contributorEmail, s.textContent, s.isPrivate, s.source, trimmed],
  );
  return row!;
}

/**
 * One submission of one book; another book's id is simply not found. With
 * `authorId` only a row that user wrote is found (a contributor sees nothing
 * else). The row is shared with identical reads asked at the same time unless
 * it is read for update: do not change it.
 */
export function findSubmission(q: Queryable, bookId: string, id: string, o: { authorId?: string; forUpdate?: boolean } = {}) {
  const params: unknown[] = [bookId, id];
  let where = `s.book_id = $1 AND s.id = $2`;
  if (o.authorId !== undefined) {
    params.push(o.authorId);
    where += ` AND s.contributor_user_id = $3`;
  }
  if (o.forUpdate) return one<SubmissionRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} FOR UPDATE OF s`, params);
  // A plain read: shared with identical reads at the same time (a memory many clients open at once); the row is read-only.
  return sharedQuery<SubmissionRow>(q, `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where}`, params).then((rows) => rows[0]);
}

/** A row of a page of submissions: its JSON around the signed members (submissionJsonSql), and what signing them needs. */
export type SubmissionPageRow = { row_id: string; share_card_key: string | null; json_head: string; json_tail: string } & Record<string, unknown>;

/**
 * One page of a book's submissions as JSON made by the database (see
 * paginate for where/params/orderBy/keys), each row with the ordering's keys
 * for the next cursor. Shared with identical reads at the same time; the rows are read-only.
 */
export function selectSubmissionPageJson(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number; keys: SortKey[] }, bookSlug: string) {
  const params = [...o.params, bookSlug, o.limit];
  const json = submissionJsonSql('s', 'u', `$${o.params.length + 1}::text`);
  const keys = o.keys.map((k) => `${k.sql} AS "${k.field}"`).join(', ');
  return sharedQuery<SubmissionPageRow>(
    q,
    `SELECT s.id AS row_id, s.share_card_key, ${json.head} AS json_head, ${json.tail} AS json_tail, ${keys}
     FROM ${FROM} WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${params.length}`,
    params,
  );
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
  // A card is rendered for one approval (see the share-card job): a new approval gets a new token, leaving approved drops it.
  sets.push(`share_card_token = CASE WHEN $${status}::text = 'approved' THEN COALESCE(share_card_token, gen_random_uuid()) ELSE NULL END`);
  return sets;
}

/**
 * A media change on the row: moves moderation when it must (approved →
 * pending, unpinned, card dropped) and otherwise still moves updated_at, since
 * the submission embeds its media (its ETag and updated_since follow them).
 */
export async function applyMediaChange(q: Queryable, bookId: string, id: string, move: ModerationMove): Promise<SubmissionRow> {
  const params: unknown[] = [bookId, id];
  const sets = move.changed ? moveSets(move, params) : [`updated_at = now()`];
  const row = await one<SubmissionRow>(q, withAuthor(`UPDATE submissions SET ${sets.join(', ')} WHERE book_id = $1 AND id = $2 RETURNING *`), params);
  return row!;
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

/** The memory's files that hold its approval back: not processed yet, or found infected. */
export function findBlockingMedia(q: Queryable, submissionId: string) {
  return q.query<{ id: string; processing_status: string; scan_result: string | null }>(
    `SELECT id, processing_status, scan_result FROM media
     WHERE submission_id = $1 AND (processing_status <> 'complete' OR scan_result = 'infected')
     ORDER BY id`,
    [submissionId],
  );
}

/** The address of a memory's author, kept on the memory (undefined: no such user row). */
export async function findAuthorEmail(q: Queryable, userId: string): Promise<{ email: string | null } | undefined> {
  const [author] = await q.query<{ email: string | null }>(`SELECT email FROM users WHERE id = $1`, [userId]);
  return author;
}

/** The memories a user wrote in books of other owners, by id. */
export function listAuthoredInOthersBooks(q: Queryable, userId: string) {
  return q.query<{ id: string; book_id: string }>(
    `SELECT s.id, s.book_id FROM submissions s JOIN books b ON b.id = s.book_id
         WHERE s.contributor_user_id = $1 AND b.owner_id <> $1 ORDER BY s.id`,
    [userId],
  );
}

/** Locks the book's row (FOR NO KEY UPDATE) for the rest of `q`'s transaction: the book first, as everywhere. */
export async function lockBookRow(q: Queryable, bookId: string): Promise<void> {
  await q.query(`SELECT id FROM books WHERE id = $1 FOR NO KEY UPDATE`, [bookId]);
}
