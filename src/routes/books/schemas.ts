import { Type } from '@sinclair/typebox';
import { Etag, ListEnvelope, ListQuery, Nullable, StrictObject, Timestamp } from '../../http/schemas/common.js';
import { BOOK_ACTIONS } from '../../services/books/book-access.js';
import { PLAN_FEATURES } from '../../services/plans/plan-types.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('contributor')]);
const Settings = Type.Object({}, { additionalProperties: true, maxProperties: 100, description: 'Free-form display settings (at most 16 KiB of JSON)' });

export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 200, description: 'Book slug' }) });

export const Book = Type.Object(
  {
    slug: Type.String(),
    title: Type.String(),
    subtitle: Type.String(),
    theme: Type.String(),
    settings: Type.Object({}, { additionalProperties: true }),
    use_case_slug: Nullable(Type.String()),
    is_public: Type.Boolean(),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    plan: Type.String({ description: 'Plan slug' }),
    role: Nullable(Role),
    created_at: Timestamp,
    updated_at: Timestamp,
    archived_at: Nullable(Timestamp),
    etag: Etag,
  },
  { $id: 'Book', title: 'Book', additionalProperties: false },
);

export const BookList = ListEnvelope(Type.Ref('Book'), 'BookList');

export const ListBooksQuery = Type.Composite([
  ListQuery,
  Type.Object({ status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')], { default: 'active' })) }),
]);

const editable = {
  subtitle: Type.Optional(Type.String({ maxLength: 300 })),
  theme: Type.Optional(Type.String({ maxLength: 100, description: 'One of the export themes; unknown: 400 with details.offered' })),
  settings: Type.Optional(Settings),
  use_case_slug: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  is_public: Type.Optional(Type.Boolean()),
};

export const CreateBookBody = StrictObject({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  ...editable,
  plan: Type.Optional(Type.String({ maxLength: 100, description: 'Plan slug; defaults to the default plan. A non-default plan consumes a held slot.' })),
});

export const UpdateBookBody = StrictObject({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ...editable,
});

export const Permissions = Type.Object(
  {
    book_slug: Type.String(),
    role: Nullable(Role),
    ...Object.fromEntries(PLAN_FEATURES.filter((f) => f.startsWith('feature_')).map((f) => [f, Type.Boolean()])),
    actions: Type.Array(Type.Union(Object.keys(BOOK_ACTIONS).map((a) => Type.Literal(a)))),
  },
  { title: 'Permissions', additionalProperties: false },
);

export const Plan = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    is_default: Type.Boolean(),
    price: Nullable(
      Type.Object({ amount_cents: Type.Integer(), currency: Type.String(), interval: Type.String() }, { additionalProperties: false }),
    ),
    features: Type.Object(Object.fromEntries(PLAN_FEATURES.map((f) => [f, Type.Boolean()])), { additionalProperties: false }),
    max_members_per_book: Type.Integer(),
    max_video_bytes: Type.Integer(),
    storage_bytes_per_book: Type.Integer(),
    max_approved_submissions_per_book: Nullable(Type.Integer()),
    channels: Type.Array(Type.String()),
  },
  { $id: 'Plan', title: 'Plan', additionalProperties: false },
);

export const PlanList = ListEnvelope(Type.Ref('Plan'), 'PlanList');

export const BillingRecord = Type.Object(
  {
    book_slug: Type.String(),
    plan: Type.Ref('Plan'),
    status: Type.Union([Type.Literal('active'), Type.Literal('grace_period'), Type.Literal('canceled')]),
    period_start: Timestamp,
    period_end: Nullable(Timestamp),
    grace_period_ends_at: Nullable(Timestamp),
    quota: Type.Object(
      {
        members_used: Type.Integer(),
        members_limit: Type.Integer(),
        storage_used_bytes: Type.Integer(),
        storage_limit_bytes: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'BillingRecord', additionalProperties: false },
);

export const DeletionQueued = Type.Object(
  { code: Type.Literal('deletion_queued'), message: Type.String(), details: Nullable(Type.Object({}, { additionalProperties: true })), request_id: Type.String() },
  { title: 'DeletionQueued', additionalProperties: false },
);
