import { etag, given, jsonShape, raw, slot, timestamp, value } from '../../db/json-shape.js';
import { CONTRIBUTOR_USER } from '../../lib/contributor.js';
import type { MediaView } from '../media/media-views.js';
import type { SubmissionRow } from './submission-types.js';

/**
 * The Submission response, in the Submission schema's order: toSubmission
 * makes it from a row, submissionJsonSql in the database for pages, around
 * the members the service signs per request (share_card_url and media)
 * (test/http/submissions/submissions.json.test.ts holds the two to the same bytes).
 */
const SUBMISSION = jsonShape<SubmissionRow, [bookSlug: string, media: MediaView[], shareCardUrl: string | null]>()({
  id: value('id'),
  book_slug: given(0),
  text_content: value('text_content'),
  contributor_name: value('contributor_name'),
  contributor_email: value('contributor_email'),
  // The author's account (the SQL reads the left-joined users row `author`).
  contributor_user: CONTRIBUTOR_USER,
  is_private: value('is_private'),
  status: value('status'),
  is_pinned: value('is_pinned'),
  pinned_at: timestamp('pinned_at'),
  rejection_reason: value('rejection_reason'),
  share_card_url: slot(2),
  media: slot(1),
  source: value('source'),
  email_trimmed: raw('email_trimmed'),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
  etag: etag('updated_at'),
});

/** `media` and `shareCardUrl` come signed from the media views (see the submission service's present). */
export const toSubmission = SUBMISSION.toObject;
export type Submission = ReturnType<typeof toSubmission>;

/**
 * The SQL of a Submission's JSON text around the signed members: `head` holds
 * the members before share_card_url (from `{`), `tail` those after media (to
 * `}`). `s` is the submissions row, `u` its left-joined author, `bookSlug` a
 * SQL expression. Made once per set of aliases.
 */
export function submissionJsonSql(s: string, u: string, bookSlug: string): { head: string; tail: string } {
  const [head, tail] = SUBMISSION.sql({ row: s, author: u }, [bookSlug]);
  return { head: head!, tail: tail! };
}

/** One Submission's JSON text from its database-made parts and the signed members. */
export function submissionJson(parts: { json_head: string; json_tail: string }, shareCardUrl: string | null, media: MediaView[]): string {
  // MediaView's members are in the MediaSummary schema's order and hold plain values: JSON.stringify writes them as the serializer does.
  return SUBMISSION.joinJson(parts.json_head, JSON.stringify(shareCardUrl), `[${media.map((m) => JSON.stringify(m)).join(',')}]`, parts.json_tail);
}
