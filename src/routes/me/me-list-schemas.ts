import { Type } from '@sinclair/typebox';
import { ListEnvelope, ListQuery, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { SLUG_RE } from '../../services/books/slug.js';
import { SUBMISSION_STATUSES } from '../../services/submissions/submission-types.js';
import { Submission } from '../submissions/schemas.js';
import { Subscription } from '../subscriptions/schemas.js';

/** The book a row of the caller's own lists is in. */
const BookRef = Type.Object({ slug: Type.String(), title: Type.String() }, { description: 'The book it is in' });

export const Membership = Type.Object(
  {
    book: Type.Object({ slug: Type.String(), title: Type.String(), status: StringEnum(['active', 'archived'] as const) }),
    role: StringEnum(['owner', 'admin', 'contributor'], { description: 'Your role in the book' }),
    joined_at: Timestamp,
  },
  {
    title: 'Membership',
    description: 'A book you belong to, in any role',
    examples: [{ book: { slug: 'grandma-turns-90', title: 'Grandma turns 90', status: 'active' }, role: 'contributor', joined_at: '2026-11-21T10:00:00.123456Z' }],
  },
);
export const MembershipList = ListEnvelope(Membership, 'MembershipList', 'One page of the books you belong to');

export const MySubmission = Type.Object(
  { ...Submission.properties, book: BookRef },
  {
    title: 'MySubmission',
    description: 'One of your memories: the submission, and the book it is in',
    examples: [{ ...Submission.examples[0], book: { slug: 'grandma-turns-90', title: 'Grandma turns 90' } }],
  },
);
export const MySubmissionList = ListEnvelope(MySubmission, 'MySubmissionList', 'One page of your memories across books');
export const ListMySubmissionsQuery = Type.Object({
  ...ListQuery.properties,
  book: Type.Optional(Type.String({ maxLength: 200, pattern: SLUG_RE.source, description: 'Only the memories of this book (its slug)' })),
  status: Type.Optional(StringEnum(SUBMISSION_STATUSES, { description: 'Only memories in this moderation state' })),
});

export const MySubscription = Type.Object(
  { ...Subscription.properties, book: BookRef },
  {
    title: 'MySubscription',
    description: 'One of your notification subscriptions, and the book it is for',
    examples: [{ ...Subscription.examples[0], book: { slug: 'grandma-turns-90', title: 'Grandma turns 90' } }],
  },
);
export const MySubscriptionList = ListEnvelope(MySubscription, 'MySubscriptionList', 'One page of your notification subscriptions across books');
