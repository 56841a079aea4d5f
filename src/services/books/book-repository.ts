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
 * there is a cursor.
 */
export interface ActivityHead {
  where: string[];
}

/** The book columns a page row's JSON (bookJsonSql) and its cover are made from. */
const PAGE_COLUMNS = `b.id, b.slug, b.title, b.subtitle, b.theme, b.settings, b.use_case_slug, b.is_public, b.status, b.plan_slug,
  b.created_at, b.updated_at, b.archived_at, b.cover_media_id, b.cover_focal_x, b.cover_focal_y`;

/** Below every bucket (book_activity_bucket is an int4): no lower bound. */
const NO_BUCKET = -2147483648;

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
 * page is bounded first on the memberships alone: the `limit`-th membership
 * past the cursor's bucket in (bucket, book id) order is found on the index
 * (a scalar subquery run once, before the scan: cheaper than a materialized
 * list of them and its minimum), and only the buckets from its bucket up to
 * the cursor's can hold the page (fewer memberships than that: no lower
 * bound). Whatever plan runs, only those memberships' books are read (the
 * page and the rest of its last bucket). Without a head: one query, as before.
 */
export function selectBookPageOfMember(
  q: Queryable,
  o: { where: string[]; params: unknown[]; orderBy: string; limit: number; keys: SortKey[] },
  head?: ActivityHead,
) {
  const params = [...o.params, o.limit];
  const limit = `$${params.length}`;
  // The page's keys under names no book column has; the outer query gives them their fields' names and keeps their order.
  const keys = o.keys.map((k, i) => `${k.sql} AS page_key_${i}`).join(', ');
  const keyFields = o.keys.map((k, i) => `b.page_key_${i} AS "${k.field}"`).join(', ');
  const pageOrder = o.keys.map((k, i) => `b.page_key_${i} ${k.dir.toUpperCase()}`).join(', ');
  const json = bookJsonSql('b', 'b.member_role');
  const where = head
    ? [
        ...o.where,
        // The subquery's own `m` (the conditions name it so) hides the outer one: it reads memberships only.
        `m.book_activity_bucket >= COALESCE((
           SELECT m.book_activity_bucket FROM book_members m
           WHERE ${head.where.join(' AND ')}
           ORDER BY m.book_activity_bucket DESC, m.book_id DESC OFFSET ${limit} - 1 LIMIT 1), ${NO_BUCKET})`,
      ]
    : o.where;
  // The JSON is made in the outer query, over the page's rows only: made in the inner one, it is
  // made for every row the sort reads (the rest of the last bucket too). The inner page's order
  // carries through the subquery, so the outer ORDER BY adds no sort.
  return sharedQuery<BookPageRow>(
    q,
    `SELECT ${json.head} AS json_head, ${json.tail} AS json_tail, b.id, b.cover_media_id, b.cover_focal_x, b.cover_focal_y, ${keyFields}
     FROM (
       SELECT ${PAGE_COLUMNS}, m.role AS member_role, ${keys}
       FROM book_members m JOIN books b ON b.id = m.book_id
       WHERE ${where.join(' AND ')}
       ORDER BY ${o.orderBy} LIMIT ${limit}
     ) AS b
     ORDER BY ${pageOrder}`,
    params,
  );
}

/** Adds (or, negative, frees) bytes of the book's storage. */
export async function addStorageUsed(q: Queryable, bookId: string, bytes: number): Promise<void> {
  await q.query(`UPDATE books SET storage_used_bytes = storage_used_bytes + $2 WHERE id = $1`, [bookId, bytes]);
}

/** Takes one free purchased slot of the plan for the user; false when none is free. */
export async function takeBookSlot(q: Queryable, userId: string, planSlug: string): Promise<boolean> {
  const taken = await q.query(`UPDATE book_slots SET used = used + 1 WHERE user_id = $1 AND plan_slug = $2 AND used < purchased RETURNING 1`, [userId, planSlug]);
  return taken.length > 0;
}

/** Adds purchased slots of a plan for the user; answers the counts after. */
export async function grantBookSlots(q: Queryable, userId: string, planSlug: string, count: number): Promise<{ purchased: number; used: number }> {
  const [row] = await q.query<{ purchased: number; used: number }>(
    `INSERT INTO book_slots (user_id, plan_slug, purchased) VALUES ($1, $2, $3)
         ON CONFLICT (user_id, plan_slug) DO UPDATE SET purchased = book_slots.purchased + EXCLUDED.purchased
         RETURNING purchased, used`,
    [userId, planSlug, count],
  );
  return row;
}

/** The storage used by the live books a user owns, and the sum of their plans' allowances. */
export async function sumOwnedStorage(q: Queryable, userId: string): Promise<{ used: number; limit: number }> {
  const [storage] = await q.query<{ used: number; limit: number }>(
    `SELECT COALESCE(sum(b.storage_used_bytes), 0)::bigint AS used, COALESCE(sum(p.storage_bytes_per_book), 0)::bigint AS limit
         FROM books b JOIN plans p ON p.slug = b.plan_slug
         WHERE b.owner_id = $1 AND b.deleted_at IS NULL`,
    [userId],
  );
  return storage;
}

/** The user's slots of every non-default plan (none bought: zeros), in the plans' display order. */
export function listBookSlots(q: Queryable, userId: string) {
  return q.query<{ plan: string; purchased: number; used: number }>(
    `SELECT p.slug AS plan, COALESCE(s.purchased, 0) AS purchased, COALESCE(s.used, 0) AS used
         FROM plans p LEFT JOIN book_slots s ON s.plan_slug = p.slug AND s.user_id = $1
         WHERE NOT p.is_default ORDER BY p.sort_order, p.slug`,
    [userId],
  );
}

/** Appends a billing record (what GET …/billing/ shows) starting now. */
export async function insertBillingRecord(
  q: Queryable,
  r: { id: string; bookId: string; planSlug: string; status: 'active' | 'grace_period' | 'canceled'; graceEndsAt: string | null },
): Promise<void> {
  await q.query(
    `INSERT INTO billing_records (id, book_id, plan_slug, status, period_start, period_end, grace_period_ends_at)
     VALUES ($1, $2, $3, $4, now(), NULL, $5)`,
    [r.id, r.bookId, r.planSlug, r.status, r.graceEndsAt],
  );
}

export interface BillingRecordRow {
  plan_slug: string;
  status: 'active' | 'grace_period' | 'canceled';
  period_start: string;
  period_end: string | null;
  grace_period_ends_at: string | null;
  cancel_at_period_end: boolean;
}

/** The book's latest billing record. */
export function findLatestBillingRecord(q: Queryable, bookId: string) {
  return one<BillingRecordRow>(
    q,
    `SELECT plan_slug, status, period_start, period_end, grace_period_ends_at, cancel_at_period_end FROM billing_records
         WHERE book_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [bookId],
  );
}

/** How many members the book has (its owner included). */
export async function countBookMembers(q: Queryable, bookId: string): Promise<number> {
  const [{ n }] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM book_members WHERE book_id = $1`, [bookId]);
  return n;
}

/** Sets a live book's billing status and grace end by slug; undefined when no live book has it. */
export function setBillingStatusBySlug(q: Queryable, slug: string, status: 'active' | 'grace_period', graceEndsAt: string | null) {
  return one<{ id: string; plan_slug: string }>(
    q,
    `UPDATE books SET billing_status = $2, grace_period_ends_at = $3 WHERE slug = $1 AND deleted_at IS NULL RETURNING id, plan_slug`,
    [slug, status, graceEndsAt],
  );
}

/** Moves a live book to a plan by slug; undefined when no live book has it. */
export function setPlanBySlug(q: Queryable, slug: string, planSlug: string) {
  return one<{ id: string; billing_status: 'active' | 'grace_period' | 'canceled'; grace_period_ends_at: string | null }>(
    q,
    `UPDATE books SET plan_slug = $2 WHERE slug = $1 AND deleted_at IS NULL RETURNING id, billing_status, grace_period_ends_at`,
    [slug, planSlug],
  );
}

/** Marks a live book deleted (404 from now on); its slug, or undefined when it was not live. */
export async function markBookDeleted(q: Queryable, bookId: string): Promise<{ slug: string } | undefined> {
  const rows = await q.query<{ id: string; slug: string }>(
    `UPDATE books SET deleted_at = now(), deletion_requested_at = COALESCE(deletion_requested_at, now())
       WHERE id = $1 AND deleted_at IS NULL RETURNING id, slug`,
    [bookId],
  );
  return rows[0];
}

/** Records the book's deletion as requested (kept if it was already); `liveOnly`: not for a book already deleted. */
export async function markDeletionRequested(q: Queryable, bookId: string, liveOnly: boolean): Promise<void> {
  await q.query(
    liveOnly
      ? `UPDATE books SET deletion_requested_at = COALESCE(deletion_requested_at, now()) WHERE id = $1 AND deleted_at IS NULL`
      : `UPDATE books SET deletion_requested_at = COALESCE(deletion_requested_at, now()) WHERE id = $1`,
    [bookId],
  );
}

/** When the book was deleted (null: live); undefined when the row is gone. */
export async function findDeletedAt(q: Queryable, bookId: string): Promise<{ deleted_at: string | null } | undefined> {
  const [book] = await q.query<{ deleted_at: string | null }>(`SELECT deleted_at FROM books WHERE id = $1`, [bookId]);
  return book;
}

/** Books whose deletion waits for its backups' erasure, and books deleted over an hour ago whose rows are still there. */
export function listOwedDeletions(q: Queryable) {
  return q.query<{ id: string; erased: boolean }>(
    `SELECT id, deleted_at IS NOT NULL AS erased FROM books
         WHERE (deletion_requested_at IS NOT NULL AND deleted_at IS NULL) OR deleted_at < now() - interval '1 hour'
         ORDER BY id`,
  );
}

/** Locks a deleted book's row for its purge; false when it is not there or not deleted. */
export async function lockDeletedBook(q: Queryable, bookId: string): Promise<boolean> {
  const [book] = await q.query<{ owner_id: string }>(`SELECT owner_id FROM books WHERE id = $1 AND deleted_at IS NOT NULL FOR UPDATE`, [bookId]);
  return book !== undefined;
}

/** Deletes the book's row; its rows go with it through foreign keys. */
export async function deleteBookRow(q: Queryable, bookId: string): Promise<void> {
  await q.query(`DELETE FROM books WHERE id = $1`, [bookId]);
}
