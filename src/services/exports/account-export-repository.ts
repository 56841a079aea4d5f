import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';

/**
 * The account export's reads (account-export-content.ts assembles the
 * document): each list a page at a time, keyset on its key.
 */

export const PAGE_SIZE = 500;

export interface ListSection {
  /** Field name in the document. */
  name: string;
  /** The keyset column: unique within the user's rows, and what `$2` is compared with. */
  key: string;
  /** Its SQL type, for the cast of `$2`. */
  keyType: 'uuid' | 'text';
  /** SELECT … FROM … WHERE <user filter> (the user is $1); paging is appended. */
  sql: string;
}

/** The lists, in document order. Every column is named: a column added later never leaks in unreviewed. */
export const SECTIONS: ListSection[] = [
  {
    name: 'memberships',
    key: 'm.book_id',
    keyType: 'uuid',
    sql: `SELECT m.book_id AS _key, b.slug AS book_slug, b.title AS book_title, m.role, m.joined_at, m.updated_at
          FROM book_members m JOIN books b ON b.id = m.book_id WHERE m.user_id = $1 AND b.deleted_at IS NULL`,
  },
  {
    name: 'books_owned',
    key: 'b.id',
    keyType: 'uuid',
    sql: `SELECT b.id AS _key, b.id, b.slug, b.title, b.subtitle, b.theme, b.settings, b.use_case_slug, b.is_public, b.status, b.plan_slug,
            b.storage_used_bytes, b.billing_status, b.grace_period_ends_at, b.created_at, b.updated_at, b.archived_at, b.deletion_requested_at
          FROM books b WHERE b.owner_id = $1 AND b.deleted_at IS NULL`,
  },
  {
    name: 'submissions',
    key: 's.id',
    keyType: 'uuid',
    sql: `SELECT s.id AS _key, s.id, b.slug AS book_slug, s.contributor_name, s.contributor_email, s.text_content, s.is_private, s.status,
            s.is_pinned, s.pinned_at, s.rejection_reason, s.source, s.created_at, s.updated_at
          FROM submissions s JOIN books b ON b.id = s.book_id WHERE s.contributor_user_id = $1 AND b.deleted_at IS NULL`,
  },
  {
    // Media of the user's memories, and media they uploaded; each carries its `original` (see account-export-content.ts).
    // `_storage_key` and `_scan_result` are read to find the original and never written out.
    name: 'media',
    key: 'md.id',
    keyType: 'uuid',
    sql: `SELECT md.id AS _key, md.id, md.submission_id, b.slug AS book_slug, md.kind, md.mime_type, md.declared_mime_type, md.original_filename,
            md.size_bytes, md.sha256, md.width, md.height, md.duration_seconds, md.processing_status, md.scan_result, md.created_at, md.updated_at,
            md.storage_key AS _storage_key
          FROM media md JOIN submissions s ON s.id = md.submission_id JOIN books b ON b.id = md.book_id
          WHERE (s.contributor_user_id = $1 OR md.uploaded_by = $1) AND b.deleted_at IS NULL`,
  },
  {
    // Transcripts of those recordings (the owner's correction when edited).
    name: 'transcriptions',
    key: 'tr.media_id',
    keyType: 'uuid',
    sql: `SELECT tr.media_id AS _key, tr.media_id, tr.submission_id, b.slug AS book_slug, tr.status, tr.language,
            coalesce(tr.edited_text, tr.text) AS text, tr.segments, tr.edited_text IS NOT NULL AS edited, tr.created_at, tr.completed_at
          FROM transcriptions tr JOIN media md ON md.id = tr.media_id JOIN submissions s ON s.id = tr.submission_id JOIN books b ON b.id = tr.book_id
          WHERE (s.contributor_user_id = $1 OR md.uploaded_by = $1) AND b.deleted_at IS NULL`,
  },
  {
    name: 'invitations_sent',
    key: 'i.id',
    keyType: 'uuid',
    sql: `SELECT i.id AS _key, i.id, b.slug AS book_slug, i.identifier_type, i.identifier, i.role, i.status, i.created_at, i.updated_at,
            i.expires_at, i.accepted_at, i.revoked_at
          FROM invitations i JOIN books b ON b.id = i.book_id WHERE i.invited_by = $1 AND b.deleted_at IS NULL`,
  },
  {
    name: 'subscriptions',
    key: 'n.id',
    keyType: 'uuid',
    sql: `SELECT n.id AS _key, n.id, b.slug AS book_slug, n.channel, n.kind, n.is_active, n.created_at, n.updated_at
          FROM notification_subscriptions n JOIN books b ON b.id = n.book_id WHERE n.user_id = $1 AND b.deleted_at IS NULL`,
  },
  {
    name: 'book_slots',
    key: 'bs.plan_slug',
    keyType: 'text',
    sql: `SELECT bs.plan_slug AS _key, bs.plan_slug AS plan, bs.purchased, bs.used, bs.updated_at FROM book_slots bs WHERE bs.user_id = $1`,
  },
  {
    // Billing through Stripe: the customer, the checkouts and the subscriptions bought (ids as Stripe knows them).
    name: 'stripe_customers',
    key: 'sc.customer_id',
    keyType: 'text',
    sql: `SELECT sc.customer_id AS _key, sc.customer_id, sc.created_at FROM stripe_customers sc WHERE sc.user_id = $1`,
  },
  {
    name: 'stripe_checkouts',
    key: 'ck.id',
    keyType: 'text',
    sql: `SELECT ck.id AS _key, ck.id, ck.plan_slug AS plan, ck.subscription_id, ck.fulfilled_at FROM stripe_checkouts ck WHERE ck.user_id = $1`,
  },
  {
    name: 'stripe_subscriptions',
    key: 'ss.id',
    keyType: 'text',
    sql: `SELECT ss.id AS _key, ss.id, ss.customer_id, ss.plan_slug AS plan, b.slug AS book_slug, ss.status, ss.period_start, ss.period_end,
            ss.grace_period_ends_at, ss.cancel_at_period_end, ss.canceled_at, ss.created_at, ss.updated_at
          FROM stripe_subscriptions ss LEFT JOIN books b ON b.id = ss.book_id AND b.deleted_at IS NULL WHERE ss.user_id = $1`,
  },
  {
    // Names and dates; the key itself is never stored, and its hash never leaves the database.
    name: 'api_tokens',
    key: 't.id',
    keyType: 'uuid',
    sql: `SELECT t.id AS _key, t.name, t.created_at, t.last_used_at, t.revoked_at FROM api_tokens t WHERE t.user_id = $1`,
  },
  {
    name: 'web_sessions',
    key: 'w.id',
    keyType: 'uuid',
    sql: `SELECT w.id AS _key, w.created_at, w.expires_at, w.ended_at FROM web_sessions w WHERE w.user_id = $1`,
  },
  {
    name: 'audit_events',
    key: 'a.id',
    keyType: 'uuid',
    sql: `SELECT a.id AS _key, a.id, a.event, a.request_id, a.data, a.created_at FROM audit_events a WHERE a.user_id = $1`,
  },
  {
    name: 'data_exports',
    key: 'x.id',
    keyType: 'uuid',
    sql: `SELECT x.id AS _key, x.id, CASE WHEN x.artifact_removed_at IS NOT NULL THEN 'expired' ELSE x.status END AS status, x.created_at, x.completed_at, x.expires_at
          FROM exports x WHERE x.kind = 'account' AND x.account_id = $1`,
  },
];

/** Rows of one section, a page at a time. */
export async function* rowsOf(q: Queryable, section: ListSection, userId: string): AsyncGenerator<Record<string, unknown>> {
  let after: string | null = null;
  for (;;) {
    const page: Record<string, unknown>[] = await q.query(
      `${section.sql} AND ($2::${section.keyType} IS NULL OR ${section.key} > $2::${section.keyType}) ORDER BY ${section.key} LIMIT $3`,
      [userId, after, PAGE_SIZE],
    );
    for (const { _key, ...row } of page) yield normalizeRow(row);
    if (page.length < PAGE_SIZE) return;
    after = String(page[page.length - 1]._key);
  }
}

/** bigint columns come back as strings from some drivers; the document has numbers. */
function normalizeRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const k of ['storage_used_bytes', 'size_bytes']) if (typeof row[k] === 'string') row[k] = Number(row[k]);
  return row;
}

export async function profileOf(q: Queryable, userId: string) {
  return one<Record<string, unknown>>(
    q,
    `SELECT id, email, phone_number, first_name, last_name, books_sort, telegram_chat_id, telegram_username, imessage_identifier,
       is_staff, is_active, (password_hash IS NOT NULL) AS has_password, date_joined, updated_at, deletion_requested_at
     FROM users WHERE id = $1`,
    [userId],
  );
}

/** The mail streams the user left, with when. */
export function findMailStreamOptouts(q: Queryable, userId: string) {
  return q.query<{ stream: string; created_at: string }>(`SELECT stream, created_at FROM mail_stream_optouts WHERE user_id = $1`, [userId]);
}
