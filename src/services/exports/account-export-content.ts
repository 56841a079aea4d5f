import type { Queryable } from '../../db/client.js';
import { MAIL_STREAMS } from '../mail-streams/mail-stream-types.js';
import { findMailStreamOptouts, profileOf, rowsOf, SECTIONS } from './account-export-repository.js';
import { ACCOUNT_EXPORT_FORMAT_VERSION } from './export-types.js';

/**
 * The GDPR export document: everything the service holds about one user, as
 * JSON text chunks. Each list is read a page at a time (keyset on its key),
 * so an account of any size is never held whole; the caller streams the
 * chunks through gzip into the store.
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

/**
 * The document as text chunks (pretty-printed, two spaces):
 * `{format_version, exported_at, user, mail_streams, memberships, books_owned,
 * submissions, media, transcriptions, invitations_sent, subscriptions, book_slots,
 * stripe_customers, stripe_checkouts, stripe_subscriptions, api_tokens, web_sessions, audit_events, data_exports}`. Throws when the
 * user is gone.
 */
export async function* accountExportChunks(q: Queryable, userId: string, exportedAt: string): AsyncGenerator<string> {
  const profile = await profileOf(q, userId);
  if (!profile) throw new Error(`user ${userId} not found`);
  yield `{\n  "format_version": ${ACCOUNT_EXPORT_FORMAT_VERSION},\n  "exported_at": ${JSON.stringify(exportedAt)},\n`;
  yield `  "user": ${indent(JSON.stringify(profile, null, 2), '  ')},\n`;
  yield `  "mail_streams": ${indent(JSON.stringify(await mailStreamsOf(q, userId), null, 2), '  ')}`;
  for (const section of SECTIONS) {
    yield `,\n  ${JSON.stringify(section.name)}: [`;
    let first = true;
    for await (const row of rowsOf(q, section, userId)) {
      yield `${first ? '' : ','}\n    ${indent(JSON.stringify(row, null, 2), '    ')}`;
      first = false;
    }
    yield first ? ']' : '\n  ]';
  }
  yield '\n}\n';
}
