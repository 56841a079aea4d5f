import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import { MAIL_STREAMS } from '../mail-streams/mail-stream-types.js';
import type { Readable } from 'node:stream';
import { ACCOUNT_EXPORT_FORMAT_VERSION } from './export-types.js';

/**
 * The GDPR export document: everything the service holds about one user, as
 * JSON text chunks. Each list is read a page at a time (keyset on its key),
 * so an account of any size is never held whole; the caller streams the
 * chunks through gzip into the store. Each media entry carries its original
 * file inline (`original.data`, base64), read from the store one file at a
 * time and encoded a chunk at a time as it is read (format 2).
 *
 * What is left out on purpose: secrets (password and token hashes, session
 * and invitation link tokens), storage keys, stored idempotency answers, and
 * other people's data beyond what the user themselves sent (the invitee of an
 * invitation they sent is in it; memories others wrote in their books are
 * not: the book export has those).
 */

export const PAGE_SIZE = 500;

interface ListSection {
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
const SECTIONS: ListSection[] = [
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
    // Media of the user's memories, and media they uploaded; each carries its `original` (see originalOf).
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
async function* rowsOf(q: Queryable, section: ListSection, userId: string): AsyncGenerator<Record<string, unknown>> {
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

async function profileOf(q: Queryable, userId: string) {
  return one<Record<string, unknown>>(
    q,
    `SELECT id, email, phone_number, first_name, last_name, books_sort, telegram_chat_id, telegram_username, imessage_identifier,
       is_staff, is_active, (password_hash IS NOT NULL) AS has_password, date_joined, updated_at, deletion_requested_at
     FROM users WHERE id = $1`,
    [userId],
  );
}

async function mailStreamsOf(q: Queryable, userId: string) {
  const out = await q.query<{ stream: string; created_at: string }>(`SELECT stream, created_at FROM mail_stream_optouts WHERE user_id = $1`, [userId]);
  const left = new Map(out.map((o) => [o.stream, o.created_at]));
  return MAIL_STREAMS.map((stream) => ({ stream, subscribed: !left.has(stream), unsubscribed_at: left.get(stream) ?? null }));
}

const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);

/** Opens a stored file for reading; null when it is gone from the store. */
export type OpenOriginal = (storageKey: string) => Promise<Readable | null>;

/** Why a media entry carries no original: found infected, awaiting its virus scan, or gone from the store (the original route's reasons). */
export type OriginalUnavailableReason = 'infected' | 'scan_pending' | 'missing';

/** Bytes read from the store at a time are encoded as they come; a remainder of 1 or 2 bytes waits for the next chunk. */
async function* base64Of(file: Readable): AsyncGenerator<string> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of file as AsyncIterable<Buffer>) {
    const bytes: Buffer = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 3);
    if (whole) yield bytes.toString('base64', 0, whole);
    rest = bytes.subarray(whole);
  }
  if (rest.length) yield rest.toString('base64');
}

const ORIGINAL_MARK = '"\\u0000original\\u0000"';

/**
 * One media entry, its original streamed inside it:
 * `original: {filename, content_type, size_bytes, sha256, encoding: "base64", data}`,
 * or `original: null` with `original_unavailable_reason`. The file is opened
 * before the entry is begun, so a file gone from the store is a null, never
 * half an entry.
 */
async function* mediaEntry(row: Record<string, unknown>, openOriginal: OpenOriginal, by: string): AsyncGenerator<string> {
  const { _storage_key: storageKey, ...entry } = row;
  let file: Readable | null = null;
  let reason: OriginalUnavailableReason | null = null;
  if (entry.scan_result === 'infected') reason = 'infected';
  else if (entry.scan_result === 'pending') reason = 'scan_pending';
  else {
    file = await openOriginal(String(storageKey));
    if (!file) reason = 'missing';
  }
  if (!file) {
    yield indent(JSON.stringify({ ...entry, original: null, original_unavailable_reason: reason }, null, 2), by);
    return;
  }
  // The entry's text around a mark where the original goes; the mark is a string no row holds.
  const [before, after] = indent(JSON.stringify({ ...entry, original: '\u0000original\u0000', original_unavailable_reason: null }, null, 2), by).split(
    ORIGINAL_MARK,
  );
  const inner = `${by}    `;
  const head = {
    filename: entry.original_filename ?? null,
    content_type: entry.mime_type,
    size_bytes: entry.size_bytes,
    sha256: entry.sha256,
    encoding: 'base64',
  };
  yield `${before}{`;
  for (const [k, v] of Object.entries(head)) yield `\n${inner}${JSON.stringify(k)}: ${JSON.stringify(v)},`;
  yield `\n${inner}"data": "`;
  try {
    yield* base64Of(file);
  } finally {
    file.destroy();
  }
  yield `"\n${by}  }${after}`;
}

/**
 * The document as text chunks (pretty-printed, two spaces):
 * `{format_version, exported_at, user, mail_streams, memberships, books_owned,
 * submissions, media, transcriptions, invitations_sent, subscriptions, book_slots,
 * stripe_customers, stripe_checkouts, stripe_subscriptions, api_tokens, web_sessions, audit_events, data_exports}`. Throws when the
 * user is gone.
 */
export async function* accountExportChunks(
  q: Queryable,
  userId: string,
  exportedAt: string,
  openOriginal: OpenOriginal,
): AsyncGenerator<string> {
  const profile = await profileOf(q, userId);
  if (!profile) throw new Error(`user ${userId} not found`);
  yield `{\n  "format_version": ${ACCOUNT_EXPORT_FORMAT_VERSION},\n  "exported_at": ${JSON.stringify(exportedAt)},\n`;
  yield `  "user": ${indent(JSON.stringify(profile, null, 2), '  ')},\n`;
  yield `  "mail_streams": ${indent(JSON.stringify(await mailStreamsOf(q, userId), null, 2), '  ')}`;
  for (const section of SECTIONS) {
    yield `,\n  ${JSON.stringify(section.name)}: [`;
    let first = true;
    for await (const row of rowsOf(q, section, userId)) {
      if (section.name === 'media') {
        yield `${first ? '' : ','}\n    `;
        yield* mediaEntry(row, openOriginal, '    ');
      } else {
        yield `${first ? '' : ','}\n    ${indent(JSON.stringify(row, null, 2), '    ')}`;
      }
      first = false;
    }
    yield first ? ']' : '\n  ]';
  }
  yield '\n}\n';
}
