import { jsonEtag, jsonMembers, jsonTimestamp, jsonValue } from '../../db/sql-json.js';
import { contributorUserOf } from '../../lib/contributor.js';
import { etagOf } from '../../lib/etag.js';
import type { MediaView } from '../media/media-views.js';
import type { SubmissionRow } from './submission-types.js';

/** `media` and `shareCardUrl` come signed from the media views (see the submission service's present). */
export function toSubmission(s: SubmissionRow, bookSlug: string, media: MediaView[], shareCardUrl: string | null) {
  return {
    id: s.id,
    book_slug: bookSlug,
    text_content: s.text_content,
    contributor_name: s.contributor_name,
    contributor_email: s.contributor_email,
    contributor_user: contributorUserOf(s),
    is_private: s.is_private,
    status: s.status,
    is_pinned: s.is_pinned,
    pinned_at: s.pinned_at,
    rejection_reason: s.rejection_reason,
    share_card_url: shareCardUrl,
    media,
    source: s.source,
    created_at: s.created_at,
    updated_at: s.updated_at,
    etag: etagOf(s.updated_at),
  };
}
export type Submission = ReturnType<typeof toSubmission>;

/**
 * toSubmission, built by the database for a page of many rows, around the
 * members the service signs per request: `head` holds the members before
 * share_card_url (from `{`), `tail` those after media (to `}`). `s` is the
 * submissions row, `u` its left-joined author, `bookSlug` a SQL expression.
 * Field for field what toSubmission makes, in the Submission schema's order
 * (test/http/submissions/submissions.json.test.ts holds the two to the same output).
 */
export function submissionJsonSql(s: string, u: string, bookSlug: string): { head: string; tail: string } {
  const author =
    `CASE WHEN ${s}.contributor_user_id IS NULL THEN 'null' ELSE ` +
    `'{' || ${jsonMembers([
      ['id', jsonValue(`${s}.contributor_user_id`)],
      ['first_name', jsonValue(`coalesce(${u}.first_name, '')`)],
      ['last_name', jsonValue(`coalesce(${u}.last_name, '')`)],
    ])} || '}' END`;
  const head = jsonMembers([
    ['id', jsonValue(`${s}.id`)],
    ['book_slug', jsonValue(bookSlug)],
    ['text_content', jsonValue(`${s}.text_content`)],
    ['contributor_name', jsonValue(`${s}.contributor_name`)],
    ['contributor_email', jsonValue(`${s}.contributor_email`)],
    ['contributor_user', author],
    ['is_private', jsonValue(`${s}.is_private`)],
    ['status', jsonValue(`${s}.status`)],
    ['is_pinned', jsonValue(`${s}.is_pinned`)],
    ['pinned_at', jsonTimestamp(`${s}.pinned_at`)],
    ['rejection_reason', jsonValue(`${s}.rejection_reason`)],
  ]);
  const tail = jsonMembers([
    ['source', jsonValue(`${s}.source`)],
    ['created_at', jsonTimestamp(`${s}.created_at`)],
    ['updated_at', jsonTimestamp(`${s}.updated_at`)],
    ['etag', jsonEtag(`${s}.updated_at`)],
  ]);
  return { head: `'{' || ${head}`, tail: `${tail} || '}'` };
}

/** One Submission's JSON text from its database-made parts and the signed members (the order of toSubmission). */
export function submissionJson(parts: { json_head: string; json_tail: string }, shareCardUrl: string | null, media: MediaView[]): string {
  // MediaView's members are in the MediaSummary schema's order and hold plain values: JSON.stringify writes them as the serializer does.
  return `${parts.json_head},"share_card_url":${JSON.stringify(shareCardUrl)},"media":[${media.map((m) => JSON.stringify(m)).join(',')}],${parts.json_tail}`;
}
