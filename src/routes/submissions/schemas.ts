import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { NAME_PATTERN } from '../../lib/names.js';
import { Etag, Id, ListEnvelope, ListQuery, Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';
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

export const Submission = Type.Object(
  {
    id: Id,
    book_slug: Type.String(),
    text_content: Type.String(),
    contributor_name: Nullable(Type.String()),
    contributor_email: Nullable(Type.String({ description: "Through the API, always the email of the caller who created it; it cannot be supplied" })),
    contributor_user: Nullable(
      Type.Object({ id: Id, first_name: Type.String(), last_name: Type.String() }, { description: 'The author; may edit the row' }),
    ),
    is_private: Type.Boolean(),
    status: StringEnum(SUBMISSION_STATUSES, { description: 'Every new row starts pending' }),
    is_pinned: Type.Boolean(),
    pinned_at: Nullable(Timestamp),
    rejection_reason: Nullable(Type.String()),
    share_card_url: Nullable(Type.String({ description: 'Signed URL of the share card rendered after approval; null until one exists' })),
    media: Type.Array(Type.Ref('MediaSummary')),
    source: Type.String({ description: 'Where the memory came in: api, web, email, sms, telegram, …' }),
    email_trimmed: Nullable(
      Type.Object(
        {
          quoted: Nullable(Type.String({ description: 'Quoted history: `>` lines, their attribution ("On … wrote:"), an earlier message under a header block or an original-message rule' })),
          signature: Nullable(Type.String({ description: 'The signature under a `-- ` line, or a mobile footer ("Sent from my iPhone")' })),
          forward_header: Nullable(Type.String({ description: "A forward's rule and header block (its sender and date stay in text_content, above the forwarded text)" })),
        },
        {
          description:
            'For a memory sent by email: what was cut from the message to keep the sender\'s own words (each part as text, null when nothing of that kind was cut). Null when nothing was cut, and for every other source. A wrong cut can be put back with an ordinary edit of text_content.',
        },
      ),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
    etag: Etag,
  },
  {
    $id: 'Submission',
    title: 'Submission',
    description: 'A memory sent into a book',
    examples: [
      {
        id: '01935f4e-8c2a-7b1e-9a51-2f6f3c1d0e4b',
        book_slug: 'grandma-turns-90',
        text_content: 'The summer she taught us all to swim in the lake.',
        contributor_name: 'Ada',
        contributor_email: 'ada@example.com',
        contributor_user: { id: '01935f4d-0b6e-7f3a-8c1d-3e2a9b7c6d5e', first_name: 'Ada', last_name: 'Lovelace' },
        is_private: false,
        status: 'approved',
        is_pinned: false,
        pinned_at: null,
        rejection_reason: null,
        share_card_url: null,
        media: [],
        source: 'api',
        email_trimmed: null,
        created_at: '2026-11-21T10:00:00.123456Z',
        updated_at: '2026-11-21T10:30:00.000001Z',
        etag: '"2026-11-21T10:30:00.000001Z"',
      },
    ],
  },
);

export const SubmissionList = ListEnvelope(Type.Ref('Submission'), 'SubmissionList', 'One page of submissions');
export const ListSubmissionsQuery = ListQuery;

const TextContent = Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, description: '1 to 20,000 characters; not blank' });
const ContributorName = Nullable(Type.String({ maxLength: MAX_CONTRIBUTOR_NAME_LENGTH, pattern: NAME_PATTERN, description: 'No control characters (422)' }));

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
    action: StringEnum(MODERATION_ACTIONS),
    changed: Type.Boolean({ description: 'False when the submission already was in the state the action leads to; nothing was written' }),
    submission: Type.Ref('Submission'),
  },
  { title: 'ModerationResult', description: 'What the action did, and the submission as it now stands' },
);
