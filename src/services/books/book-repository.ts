import type { Queryable } from '../../db/client.js';
import { one, sharedQuery } from '../../db/client.js';
import type { SortKey } from '../../db/pagination.js';
import { bookJsonSql } from './book-mapper.js';
import type { BookContext, BookRow, Role } from './book-types.js';

export const BOOK_COLUMNS = `b.id, b.slug, b.owner_id, b.title, b.subtitle, b.theme, b.settings, b.use_case_slug, b.is_public,
  b.status, b.plan_slug, b.storage_used_bytes, b.billing_status, b.grace_period_ends_at, b.last_activity_at,
  b.created_at, b.updated_at, b.archived_at, b.deletion_requested_at, b.cover_media_id, b.cover_focal_x, b.cover_focal_y`;

const IN_GRACE = `(b.billing_status = 'grace_period' AND (b.grace_period_ends_at IS NULL OR b.grace_period_ends_at > now()))`;

const CONTEXT_COLUMNS = `${BOOK_COLUMNS}, m.role AS member_role, ${IN_GRACE} AS in_grace, p.features AS plan_features,
  json_build_object('max_members_per_book', p.max_members_per_book,
                    'max_approved_submissions_per_book', p.max_approved_submissions_per_book,
                    'max_video_bytes', p.max_video_bytes,
                    'storage_bytes_per_book', p.storage_bytes_per_book) AS plan_limits`;

type ContextRow = BookRow & { member_role: Role | null; in_grace: boolean; plan_features: Record<string, boolean>; plan_limits: BookContext['planLimits'] };

function toContext(row: ContextRow): BookContext {
  const { member_role, in_grace, plan_features, plan_limits, ...book } = row;
  return { book, role: member_role, inGracePeriod: in_grace, planFeatures: plan_features, planLimits: plan_limits };
}

/**
 * One query for everything the guard needs: the live book by slug, the
 * caller's role on it (null for non-members) and the plan's features.
 * A book whose deletion is final is simply not found. `lock` takes a row
 * lock on the book for the rest of the caller's transaction. 'update' is
 * FOR NO KEY UPDATE, as every lock taken on a book to write is: it
 * serialises the book's writers without blocking inserts of rows that
 * refer to the book (their foreign-key checks take KEY SHARE), so a writer
 * that inserts first and locks the book last (BookAccess.writeThenLock)
 * cannot deadlock with one that locked first.
 */
export async function findBookContext(
  q: Queryable,
  slug: string,
  userId: string | null,
  lock: 'update' | 'share' | null = null,
): Promise<BookContext | undefined> {
  const row = await one<ContextRow>(
    q,
    `SELECT ${CONTEXT_COLUMNS}
     FROM books b
     JOIN plans p ON p.slug = b.plan_slug
     LEFT JOIN book_members m ON m.book_id = b.id AND m.user_id = $2
     WHERE b.slug = $1 AND b.deleted_at IS NULL${lock ? ` FOR ${lock === 'update' ? 'NO KEY UPDATE' : 'SHARE'} OF b` : ''}`,
    [slug, userId],
  );
  return row && toContext(row);
}

/** The key of a (slug, caller) pair in findBookContexts' answer. */
export const contextKey = (slug: string, userId: string | null) => `${slug}|${userId ?? ''}`;

/** findBookContext for many (slug, caller) pairs in one query (no locks), by contextKey; pairs whose book is not found are absent. */
export async function findBookContexts(q: Queryable, pairs: { slug: string; userId: string | null }[]): Promise<Map<string, BookContext>> {
  // LATERAL: one index lookup of each pair's book. As a plain join the planner hashes the whole
  // books table for a dozen pairs (it cannot know how few unnest gives), a seq scan per batch.
  const rows = await q.query<ContextRow & { k_user_id: string | null }>(
    `SELECT c.*, k.user_id AS k_user_id
     FROM unnest($1::text[], $2::uuid[]) AS k(slug, user_id)
     CROSS JOIN LATERAL (
       SELECT ${CONTEXT_COLUMNS}
       FROM books b
       JOIN plans p ON p.slug = b.plan_slug
       LEFT JOIN book_members m ON m.book_id = b.id AND m.user_id = k.user_id
       WHERE b.slug = k.slug AND b.deleted_at IS NULL
     ) c`,
    [pairs.map((p) => p.slug), pairs.map((p) => p.userId)],
  );
  return new Map(rows.map(({ k_user_id, ...row }) => [contextKey(row.slug, k_user_id), toContext(row)]));
}

/**
 * Moves the book's last activity to now and returns its context as the row
 * lock taken for it sees it (the newest committed version): for a write
 * that decides again, as its last step, on what it commits with. A book
 * whose activity is already at now (a second write in one transaction) is
 * locked without an update, so its updated_at and ETag never move for it.
 */
export async function lockBookWithActivity(q: Queryable, bookId: string, slug: string, userId: string | null): Promise<BookContext | undefined> {
  const row = await one<ContextRow>(
    q,
    `UPDATE books AS b SET last_activity_at = now()
     FROM plans p
     WHERE b.id = $1 AND b.deleted_at IS NULL AND p.slug = b.plan_slug AND b.last_activity_at < now()
     RETURNING ${CONTEXT_COLUMNS.replace('m.role AS member_role', '(SELECT m.role FROM book_members m WHERE m.book_id = b.id AND m.user_id = $2) AS member_role')}`,
    [bookId, userId],
  );
  return row ? toContext(row) : findBookContext(q, slug, userId, 'update');
}

export function findBookForUpdate(q: Queryable, id: string) {
  return one<BookRow>(q, `SELECT ${BOOK_COLUMNS} FROM books b WHERE b.id = $1 AND b.deleted_at IS NULL FOR NO KEY UPDATE`, [id]);
}

/**
 * Inserts a book under the first free slug of `slugs`, with its owner's
 * membership and first billing record, in one statement (create_book, see
 * migrations/0014_create_book.sql). A null plan is the default plan.
 * Undefined when every slug is taken.
 */
export function insertBook(
  q: Queryable,
  b: { id: string; slugs: string[]; ownerId: string; title: string; subtitle: string; theme: string; settings: unknown; useCaseSlug: string | null; isPublic: boolean; planSlug: string | null; billingRecordId: string },
): Promise<BookRow | undefined> {
  return one<BookRow>(
    q,
    `SELECT ${BOOK_COLUMNS} FROM create_book($1::text[], $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS b`,
    [b.slugs, b.id, b.ownerId, b.title, b.subtitle, b.theme, JSON.stringify(b.settings), b.useCaseSlug, b.isPublic, b.planSlug, b.billingRecordId],
  );
}

export function updateBookFields(q: Queryable, id: string, patch: Record<string, unknown>) {
  const allowed = ['title', 'subtitle', 'theme', 'settings', 'use_case_slug', 'is_public'];
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const k of allowed) {
    if (!(k in patch)) continue;
    params.push(k === 'settings' ? JSON.stringify(patch[k]) : patch[k]);
    sets.push(`${k} = $${params.length}`);
  }
  if (!sets.length) return findBookForUpdate(q, id) as Promise<BookRow>;
  return one<BookRow>(q, `UPDATE books AS b SET ${sets.join(', ')} WHERE b.id = $1 RETURNING ${BOOK_COLUMNS}`, params) as Promise<BookRow>;
}

export function setBookStatus(q: Queryable, id: string, status: 'active' | 'archived') {
  return one<BookRow>(
    q,
    `UPDATE books AS b SET status = $2, archived_at = CASE WHEN $2 = 'archived' THEN now() ELSE NULL END
     WHERE b.id = $1 AND b.status <> $2 RETURNING ${BOOK_COLUMNS}`,
    [id, status],
  );
}

/** A row of a page of books: the Book's JSON around its cover (bookJsonSql), what the cover is made from, and the ordering's keys, for the next cursor. */
export type BookPageRow = { json_head: string; json_tail: string; id: string; cover_media_id: string | null; cover_focal_x: number | null; cover_focal_y: number | null } & Record<string, unknown>;

/**
 * Bounds the activity order's page to the memberships it can hold, whatever
 * plan the database picks (see selectBookPageOfMember). `where` are the
 * membership's own conditions of the list, past the cursor's bucket when
 * there is a cursor (`floor`: the cursor's bucket, a placeholder).
 */
export interface ActivityHead {
  where: string[];
  floor: string | null;
}

/**
 * One page of the caller's books where they are owner or admin (see paginate
 * for where/params/orderBy): the conditions and the ordering are on the
 * membership row, so the page comes off one index and only its books are
 * read. Each book comes as its JSON, made by the database. Requests for the
 * same page at the same time share one execution (the rows are read-only).
 *
 * The activity order (`head`) sorts each ten-minute bucket the index gives by
 * its books' own time (migrations/0025_book_activity_bucket.sql). Its plan
 * must not depend on planner statistics (PGlite has no autovacuum, and a
 * generic plan without them guesses one row): left to itself the planner
 * may read every book of the caller to sort them all and keep 51. So the
 * page is bounded first on the memberships alone: `head` takes the first
 * `limit` memberships past the cursor's bucket in (bucket, book id) order,
 * and only the buckets from the lowest of those up to the cursor's can hold
 * the page. Whatever plan runs, only those memberships' books are read (the
 * page and the rest of its last bucket). Without a head: one query, as before.
 */
export function selectBookPageOfMember(
  q: Queryable,
  o: { where: string[]; params: unknown[]; orderBy: string; limit: number; keys: SortKey[] },
  head?: ActivityHead,
) {
  const params = [...o.params, o.limit];
  const limit = `$${params.length}`;
  const keys = o.keys.map((k) => `${k.sql} AS "${k.field}"`).join(', ');
  const json = bookJsonSql('b', 'm.role');
  const where = head ? [...o.where, `m.book_activity_bucket >= COALESCE((SELECT min(bucket) FROM head), ${head.floor ?? 'NULL'})`] : o.where;
  const withHead = head
    ? `WITH head AS MATERIALIZED (
         SELECT m.book_activity_bucket AS bucket FROM book_members m
         WHERE ${head.where.join(' AND ')}
         ORDER BY m.book_activity_bucket DESC, m.book_id DESC LIMIT ${limit})
       `
    : '';
  return sharedQuery<BookPageRow>(
    q,
    `${withHead}SELECT ${json.head} AS json_head, ${json.tail} AS json_tail, b.id, b.cover_media_id, b.cover_focal_x, b.cover_focal_y, ${keys}
     FROM book_members m JOIN books b ON b.id = m.book_id
     WHERE ${where.join(' AND ')}
     ORDER BY ${o.orderBy} LIMIT ${limit}`,
    params,
  );
}
