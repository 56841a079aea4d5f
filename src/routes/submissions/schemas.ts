import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { Etag, Id, ListEnvelope, ListQuery, Nullable, StrictObject, Timestamp } from '../../http/schemas/common.js';
import { isUuid } from '../../lib/ids.js';
import { MODERATION_ACTIONS } from '../../services/submissions/moderation.js';
import {
  MAX_CONTRIBUTOR_NAME_LENGTH,
  MAX_REJECTION_REASON_LENGTH,
  MAX_TEXT_LENGTH,
  SUBMISSION_STATUSES,
} from '../../services/submissions/submission-types.js';

export const SubmissionParams = Type.Object({
  slug: Type.String({ maxLength: 200, description: 'Book slug' }),
  id: Type.String({ maxLength: 200, description: 'Submission id (opaque)' }),
});

/**
 * onRequest hook of the /submissions/{id}/ routes: an id that is not shaped
 * like ours names nothing. Answered here, after the book checks and before
 * the Idempotency-Key is claimed, so such a 404 is never stored for replay.
 */
export async function submissionIdMustBeWellFormed(request: FastifyRequest) {
  if (!isUuid((request.params as { id?: string }).id)) throw errors.notFound('submission');
}

/** Filled in by the media resource; listed here because a submission embeds it. */
export const MediaSummary = Type.Object(
  {
    id: Id,
    kind: Type.Union([Type.Literal('image'), Type.Literal('audio'), Type.Literal('video')]),
    mime_type: Type.String(),
    size_bytes: Type.Integer(),
    width: Nullable(Type.Integer()),
    height: Nullable(Type.Integer()),
    duration_seconds: Nullable(Type.Number()),
    processing_status: Type.Union(['pending', 'processing', 'complete', 'failed'].map((s) => Type.Literal(s))),
    scan_result: Type.Union(['pending', 'clean', 'infected', 'skipped_by_policy', 'not_scanned'].map((s) => Type.Literal(s))),
    download_url: Nullable(Type.String()),
    download_status: Type.Union([Type.Literal('available'), Type.Literal('unavailable')]),
    thumbnail_url: Nullable(Type.String()),
    urls_expire_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'MediaSummary', title: 'MediaSummary', additionalProperties: false },
);

export const Submission = Type.Object(
  {
    id: Id,
    book_slug: Type.String(),
    text_content: Type.String(),
    contributor_name: Nullable(Type.String()),
    contributor_email: Nullable(Type.String({ description: "Through the API, always the email of the caller who created it; it cannot be supplied" })),
    contributor_user: Nullable(
      Type.Object({ id: Id, first_name: Type.String(), last_name: Type.String() }, { additionalProperties: false, description: 'The author; may edit the row' }),
    ),
    is_private: Type.Boolean(),
    status: Type.Union(SUBMISSION_STATUSES.map((s) => Type.Literal(s)), { description: 'Every new row starts pending' }),
    is_pinned: Type.Boolean(),
    pinned_at: Nullable(Timestamp),
    rejection_reason: Nullable(Type.String()),
    share_card_url: Nullable(Type.String({ description: 'Signed URL of the share card rendered after approval; null until one exists' })),
    media: Type.Array(Type.Ref('MediaSummary')),
    source: Type.String({ description: 'Where the memory came in: api, web, email, sms, telegram, …' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    etag: Etag,
  },
  { $id: 'Submission', title: 'Submission', additionalProperties: false },
);

export const SubmissionList = ListEnvelope(Type.Ref('Submission'), 'SubmissionList');
export const ListSubmissionsQuery = ListQuery;

const TextContent = Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, description: '1 to 20,000 characters; not blank' });
const ContributorName = Nullable(Type.String({ maxLength: MAX_CONTRIBUTOR_NAME_LENGTH }));

export const CreateSubmissionBody = StrictObject({
  text_content: TextContent,
  contributor_name: Type.Optional(ContributorName),
  is_private: Type.Optional(Type.Boolean({ default: false })),
});

export const UpdateSubmissionBody = StrictObject({
  text_content: Type.Optional(TextContent),
  contributor_name: Type.Optional(ContributorName),
  is_private: Type.Optional(Type.Boolean()),
});

/** An empty body (or none) is a rejection without a reason. */
export const RejectBody = Nullable(
  StrictObject({
    reason: Type.Optional(Nullable(Type.String({ maxLength: MAX_REJECTION_REASON_LENGTH, description: 'Shown to the contributor in the rejection email' }))),
  }),
);

export const ModerationResult = Type.Object(
  {
    action: Type.Union(MODERATION_ACTIONS.map((a) => Type.Literal(a))),
    changed: Type.Boolean({ description: 'False when the submission already was in the state the action leads to; nothing was written' }),
    submission: Type.Ref('Submission'),
  },
  { title: 'ModerationResult', additionalProperties: false },
);
