import { Type } from '@sinclair/typebox';
import { Etag, ListEnvelope, ListQuery, Nullable, ServiceCheckedEnum, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { BOOK_ACTIONS } from '../../services/books/book-access.js';
import { BOOK_LANGUAGES, BOOK_STATUSES, THEMES, USE_CASES } from '../../services/books/book-types.js';
import { PLAN_FEATURES } from '../../services/plans/plan-types.js';

const Role = StringEnum(['owner', 'admin', 'contributor'], { description: "The caller's role on the book" });
const Settings = Type.Object({}, {
  additionalProperties: true,
  maxProperties: 100,
  description:
    'Free-form display settings (at most 16 KiB of JSON). Read by the service: `language` (one of ' +
    BOOK_LANGUAGES.join(', ') +
    ': the language of the book\'s contributor form and thanks page when the reader\'s browser accepts it or names none we speak; unknown: 400 validation_failed with details.offered)',
});

export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 200, description: 'Book slug' }) });

export const Book = Type.Object(
  {
    slug: Type.String({ description: 'Derived from the title; unique and immutable' }),
    title: Type.String(),
    subtitle: Type.String(),
    theme: StringEnum(THEMES, { description: 'Export theme' }),
    settings: Type.Object({}, { additionalProperties: true, description: 'Free-form display settings' }),
    use_case_slug: Nullable(StringEnum(USE_CASES, { description: 'What the book is for' })),
    is_public: Type.Boolean(),
    status: StringEnum(BOOK_STATUSES),
    plan: Type.String({ description: 'Plan slug' }),
    role: Nullable(Role),
    created_at: Timestamp,
    updated_at: Timestamp,
    archived_at: Nullable(Timestamp),
    cover: Nullable(Type.Ref('BookCover', {
      description:
        "The book's chosen cover; null until one is chosen (the printed book, share cards and the web form then take the first pinned memory's photo). " +
        'Set with PUT /books/{slug}/cover/ (an upload) or PATCH cover_media_id (a memory\'s photo); DELETE /books/{slug}/cover/ returns to the automatic choice.',
    })),
    etag: Etag,
  },
  {
    $id: 'Book',
    title: 'Book',
    description: 'A memory book',
    examples: [
      {
        slug: 'grandma-turns-90',
        title: 'Grandma turns 90',
        subtitle: 'Stories from the family',
        theme: 'storybook',
        settings: {},
        use_case_slug: 'birthday',
        is_public: false,
        status: 'active',
        plan: 'free',
        role: 'owner',
        created_at: '2026-11-21T10:00:00.123456Z',
        updated_at: '2026-11-21T10:05:00.654321Z',
        archived_at: null,
        cover: null,
        etag: '"2026-11-21T10:05:00.654321Z"',
      },
    ],
  },
);

const focalPointMembers = {
  x: Type.Number({ minimum: 0, maximum: 1, description: 'From the left edge of the upright photo (0) to the right (1)' }),
  y: Type.Number({ minimum: 0, maximum: 1, description: 'From the top edge (0) to the bottom (1)' }),
};
const FOCAL_POINT_DESCRIPTION = "Where the photo's subject is: every crop of the cover is centred on it as far as the photo's edges allow";

export const FocalPoint = Type.Object(focalPointMembers, { $id: 'FocalPoint', title: 'FocalPoint', description: FOCAL_POINT_DESCRIPTION });

export const BookCover = Type.Object(
  {
    media_id: Type.String({ format: 'uuid', description: "The cover's media id: a photo of one of the book's memories, or the photo uploaded with PUT /books/{slug}/cover/" }),
    url: Nullable(Type.String({ format: 'uri', description: 'Signed like a media download (15 minutes); null when it cannot be signed' })),
    width: Nullable(Type.Integer({ description: 'Upright width in pixels' })),
    height: Nullable(Type.Integer({ description: 'Upright height in pixels' })),
    focal_point: Type.Ref('FocalPoint'),
  },
  {
    $id: 'BookCover',
    title: 'BookCover',
    description: "A book's chosen cover",
    examples: [{ media_id: '01936f4e-8a1b-7c3d-9e2f-0a1b2c3d4e5f', url: 'https://files.example.org/media/01936f4e-8a1b-7c3d-9e2f-0a1b2c3d4e5f/cover.jpg?X-Amz-Expires=900&X-Amz-Signature=5d41402abc4b2a76', width: 3024, height: 4032, focal_point: { x: 0.42, y: 0.31 } }],
  },
);

export const BookList = ListEnvelope(Type.Ref('Book'), 'BookList', 'One page of books');

export const ListBooksQuery = Type.Composite([
  ListQuery,
  Type.Object({ status: Type.Optional(StringEnum(BOOK_STATUSES, { default: 'active', description: 'Archived books are listed only with status=archived' })) }),
]);

const editable = {
  subtitle: Type.Optional(Type.String({ maxLength: 300 })),
  theme: Type.Optional(ServiceCheckedEnum(THEMES, { maxLength: 100, description: 'One of the export themes; unknown: 400 validation_failed with details.offered' })),
  settings: Type.Optional(Settings),
  use_case_slug: Type.Optional(
    Nullable(ServiceCheckedEnum(USE_CASES, { maxLength: 100, description: 'One of the shipped use cases; unknown: 400 validation_failed with details.offered' })),
  ),
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
  cover_media_id: Type.Optional(
    Nullable(
      Type.String({
        format: 'uuid',
        description:
          "A photo of one of this book's memories as its cover (focused on its detected subject unless cover_focal_point is given); null returns to the automatic choice. " +
          "Any other id (another book's, unknown): 404 not_found; audio or video, or a file found infected or awaiting its scan: 400 validation_failed (details.reason not_image, infected, pending).",
      }),
    ),
  ),
  cover_focal_point: Type.Optional(
    // Inline: request bodies are validated without the shared schemas.
    Type.Object(focalPointMembers, {
      additionalProperties: false,
      description: `${FOCAL_POINT_DESCRIPTION}. Moves the cover's focus; without a cover (and no cover_media_id): 400 validation_failed, details.reason no_cover`,
    }),
  ),
});

export const Permissions = Type.Object(
  {
    book_slug: Type.String(),
    role: Nullable(Role),
    ...Object.fromEntries(PLAN_FEATURES.filter((f) => f.startsWith('feature_')).map((f) => [f, Type.Boolean()])),
    actions: Type.Array(StringEnum(Object.keys(BOOK_ACTIONS)), { description: 'The actions you may take on this book now' }),
  },
  { title: 'Permissions', description: 'Your role on the book, its plan features, and the actions you may take' },
);

export const Plan = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    is_default: Type.Boolean(),
    price: Nullable(Type.Object({ amount_cents: Type.Integer(), currency: Type.String(), interval: Type.String() })),
    features: Type.Object(Object.fromEntries(PLAN_FEATURES.map((f) => [f, Type.Boolean()]))),
    max_members_per_book: Type.Integer(),
    max_video_bytes: Type.Integer(),
    storage_bytes_per_book: Type.Integer(),
    max_approved_submissions_per_book: Nullable(Type.Integer()),
    channels: Type.Array(Type.String()),
  },
  { $id: 'Plan', title: 'Plan', description: 'A plan of the catalog: its price, features and limits' },
);

export const PlanList = ListEnvelope(Type.Ref('Plan'), 'PlanList', 'The plan catalog');

export const BillingRecord = Type.Object(
  {
    book_slug: Type.String(),
    plan: Type.Ref('Plan'),
    status: StringEnum(['active', 'grace_period', 'canceled']),
    period_start: Timestamp,
    period_end: Nullable(Timestamp),
    grace_period_ends_at: Nullable(Timestamp),
    cancel_at_period_end: Type.Boolean({
      description: 'True when the subscription paying for the book is set to end at period_end (canceled in the customer portal); the book stays on its plan until then',
    }),
    quota: Type.Object(
      {
        members_used: Type.Integer(),
        members_limit: Type.Integer(),
        storage_used_bytes: Type.Integer(),
        storage_limit_bytes: Type.Integer(),
      },
    ),
    manage_url: Type.String({
      format: 'uri',
      description: "The web page where the owner manages this billing (Stripe's customer portal when the service sells plans through Stripe)",
    }),
  },
  { title: 'BillingRecord', description: "The book's latest billing record, with its plan and a quota snapshot" },
);

export const DeletionQueued = Type.Object(
  {
    code: StringEnum(['deletion_queued']),
    message: Type.String(),
    details: Nullable(Type.Object({ retry_after_seconds: Type.Optional(Type.Integer()) }, { additionalProperties: true })),
    request_id: Type.String(),
  },
  {
    title: 'DeletionQueued',
    description: 'Deletion is queued: off-site backup erasure is not confirmed yet. The book keeps answering; retry with the same Idempotency-Key after Retry-After',
  },
);
