import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { Role } from './book-access.js';
import type { BookContext, BookRow } from './book-types.js';

export const BOOK_COLUMNS = `b.id, b.slug, b.owner_id, b.title, b.subtitle, b.theme, b.settings, b.use_case_slug, b.is_public,
  b.status, b.plan_slug, b.storage_used_bytes, b.billing_status, b.grace_period_ends_at, b.last_activity_at,
  b.created_at, b.updated_at, b.archived_at, b.deletion_requested_at`;

const IN_GRACE = `(b.billing_status = 'grace_period' AND (b.grace_period_ends_at IS NULL OR b.grace_period_ends_at > now()))`;

/**
 * One query for everything the guard needs: the live book by slug, the
 * caller's role on it (null for non-members) and the plan's features.
 * A book whose deletion is final is simply not found. `lock` takes a row
 * lock on the book for the rest of the caller's transaction.
 */
export async function findBookContext(
  q: Queryable,
  slug: string,
  userId: string | null,
  lock: 'update' | 'share' | null = null,
): Promise<BookContext | undefined> {
  const row = await one<BookRow & { member_role: Role | null; in_grace: boolean; plan_features: Record<string, boolean>; plan_limits: BookContext['planLimits'] }>(
    q,
    `SELECT ${BOOK_COLUMNS}, m.role AS member_role, ${IN_GRACE} AS in_grace, p.features AS plan_features,
            json_build_object('max_members_per_book', p.max_members_per_book,
                              'max_approved_submissions_per_book', p.max_approved_submissions_per_book,
                              'max_video_bytes', p.max_video_bytes,
                              'storage_bytes_per_book', p.storage_bytes_per_book) AS plan_limits
     FROM books b
     JOIN plans p ON p.slug = b.plan_slug
     LEFT JOIN book_members m ON m.book_id = b.id AND m.user_id = $2
     WHERE b.slug = $1 AND b.deleted_at IS NULL${lock ? ` FOR ${lock === 'update' ? 'UPDATE' : 'SHARE'} OF b` : ''}`,
    [slug, userId],
  );
  if (!row) return undefined;
  const { member_role, in_grace, plan_features, plan_limits, ...book } = row;
  return { book, role: member_role, inGracePeriod: in_grace, planFeatures: plan_features, planLimits: plan_limits };
}

export function findBookForUpdate(q: Queryable, id: string) {
  return one<BookRow>(q, `SELECT ${BOOK_COLUMNS} FROM books b WHERE b.id = $1 AND b.deleted_at IS NULL FOR UPDATE`, [id]);
}

/**
 * Inserts the book and its owner membership, unless another book already
 * holds the slug: then nothing is written and undefined comes back (no error,
 * so the caller's transaction stays usable for the next candidate).
 */
export async function insertBookIfSlugFree(
  q: Queryable,
  b: { id: string; slug: string; ownerId: string; title: string; subtitle: string; theme: string; settings: unknown; useCaseSlug: string | null; isPublic: boolean; planSlug: string },
): Promise<BookRow | undefined> {
  const row = await one<BookRow>(
    q,
    `INSERT INTO books AS b (id, slug, owner_id, title, subtitle, theme, settings, use_case_slug, is_public, plan_slug)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (slug) DO NOTHING RETURNING ${BOOK_COLUMNS}`,
    [b.id, b.slug, b.ownerId, b.title, b.subtitle, b.theme, JSON.stringify(b.settings), b.useCaseSlug, b.isPublic, b.planSlug],
  );
  if (row) await q.query(`INSERT INTO book_members (book_id, user_id, role) VALUES ($1, $2, 'owner')`, [b.id, b.ownerId]);
  return row;
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

export interface BookListRow extends BookRow {
  role: Role;
  sort_title: string;
  role_rank: number;
  sync_at: string;
}

/** One page of the caller's books where they are owner or admin (see paginate for where/params/orderBy). */
export function selectBooksOfMember(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  const params = [...o.params, o.limit];
  return q.query<BookListRow>(
    `SELECT ${BOOK_COLUMNS}, m.role, lower(b.title) AS sort_title,
            CASE m.role WHEN 'owner' THEN 0 ELSE 1 END AS role_rank,
            GREATEST(b.updated_at, m.updated_at) AS sync_at
     FROM book_members m JOIN books b ON b.id = m.book_id
     WHERE ${o.where.join(' AND ')}
     ORDER BY ${o.orderBy} LIMIT $${params.length}`,
    params,
  );
}
