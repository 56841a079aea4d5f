import type { Queryable } from '../../db/client.js';
import { findMailStreamOptouts, profileOf, rowsOf, SECTIONS } from './account-export-repository.js';
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

async function mailStreamsOf(q: Queryable, userId: string) {
  const out = await findMailStreamOptouts(q, userId);
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
