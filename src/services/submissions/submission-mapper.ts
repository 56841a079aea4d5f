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
    contributor_user: s.contributor_user_id
      ? { id: s.contributor_user_id, first_name: s.contributor_first_name ?? '', last_name: s.contributor_last_name ?? '' }
      : null,
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
