import type { Queryable } from '../../db/client.js';
import { sharedQuery } from '../../db/client.js';
import type { Role } from '../books/book-types.js';
import { submissionJsonSql } from '../submissions/submission-mapper.js';
import type { SubscriptionRow } from '../subscriptions/subscription-types.js';

/**
 * The pages of the caller's own lists (me-lists-service.ts). Each takes
 * paginate's where/params/orderBy/limit and reads one index of the caller's
 * id (migration 0031); requests for the same page at the same time share one
 * execution (the rows are read-only).
 */

/** The caller is still a member of the row's book, and the book is not deleted (book_live, kept by 0013's triggers). */
export const stillMember = (bookColumn: string, userParam: string) =>
  `EXISTS (SELECT 1 FROM book_members mm WHERE mm.book_id = ${bookColumn} AND mm.user_id = ${userParam} AND mm.book_live)`;

export type MembershipRow = { book_id: string; slug: string; title: string; status: 'active' | 'archived'; role: Role; joined_at: string; changed_at: string };
export type MySubmissionRow = { row_id: string; share_card_key: string | null; json_head: string; json_tail: string; book_slug: string; book_title: string } & Record<string, unknown>;
export type MySubscriptionRow = SubscriptionRow & { book_slug: string; book_title: string } & Record<string, unknown>;

interface PageQuery {
  where: string[];
  params: unknown[];
  orderBy: string;
  limit: number;
}

export function selectMembershipPage(q: Queryable, o: PageQuery) {
  return sharedQuery<MembershipRow>(
    q,
    `SELECT m.book_id, b.slug, b.title, b.status, m.role, m.joined_at, GREATEST(m.book_updated_at, m.updated_at) AS changed_at
             FROM book_members m JOIN books b ON b.id = m.book_id
             WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${o.params.length + 1}`,
    [...o.params, o.limit],
  ) as Promise<MembershipRow[]>;
}

/** Each memory as its Submission JSON around the signed media (json_head/json_tail), with its book; `keys` are the ordering's, for the next cursor. */
export function selectMySubmissionPage(q: Queryable, o: PageQuery & { keys: { sql: string; field: string }[] }) {
  const json = submissionJsonSql('s', 'u', 'b.slug');
  const keys = o.keys.map((k) => `${k.sql} AS "${k.field}"`).join(', ');
  return sharedQuery<MySubmissionRow>(
    q,
    `SELECT s.id AS row_id, s.share_card_key, ${json.head} AS json_head, ${json.tail} AS json_tail, b.slug AS book_slug, b.title AS book_title, ${keys}
             FROM submissions s JOIN books b ON b.id = s.book_id LEFT JOIN users u ON u.id = s.contributor_user_id
             WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${o.params.length + 1}`,
    [...o.params, o.limit],
  ) as Promise<MySubmissionRow[]>;
}

export function selectMySubscriptionPage(q: Queryable, o: PageQuery) {
  return sharedQuery<MySubscriptionRow>(
    q,
    `SELECT n.id, n.user_id, n.book_id, n.channel, n.kind, n.is_active, n.created_at, n.updated_at, b.slug AS book_slug, b.title AS book_title
             FROM notification_subscriptions n JOIN books b ON b.id = n.book_id
             WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT $${o.params.length + 1}`,
    [...o.params, o.limit],
  ) as Promise<MySubscriptionRow[]>;
}
