import { Type } from '@sinclair/typebox';
import { Etag, Id, Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { BOOKS_SORTS, READ_ONLY_PROFILE_FIELDS } from '../../services/users/user-types.js';

export const BooksSort = StringEnum(BOOKS_SORTS, { description: 'Order of GET /books/' });

export const Profile = Type.Object(
  {
    id: Id,
    email: Type.String(),
    phone_number: Nullable(Type.String()),
    first_name: Type.String(),
    last_name: Type.String(),
    books_sort: BooksSort,
    telegram_chat_id: Nullable(Type.String()),
    telegram_username: Nullable(Type.String()),
    imessage_identifier: Nullable(Type.String()),
    is_staff: Type.Boolean(),
    date_joined: Timestamp,
    updated_at: Timestamp,
    etag: Etag,
  },
  {
    title: 'Profile',
    description: 'Your profile',
    examples: [
      {
        id: '01935f4d-0b6e-7f3a-8c1d-3e2a9b7c6d5e',
        email: 'ada@example.com',
        phone_number: null,
        first_name: 'Ada',
        last_name: 'Lovelace',
        books_sort: 'activity',
        telegram_chat_id: null,
        telegram_username: null,
        imessage_identifier: null,
        is_staff: false,
        date_joined: '2026-11-01T09:00:00.000000Z',
        updated_at: '2026-11-21T10:00:00.123456Z',
        etag: '"2026-11-21T10:00:00.123456Z"',
      },
    ],
  },
);

/** Writable fields, plus the read-only ones accepted by the schema so the route can answer 400 naming them. */
export const UpdateProfileBody = StrictObject({
  first_name: Type.Optional(Type.String({ maxLength: 150 })),
  last_name: Type.Optional(Type.String({ maxLength: 150 })),
  books_sort: Type.Optional(BooksSort),
  ...Object.fromEntries(READ_ONLY_PROFILE_FIELDS.map((f) => [f, Type.Optional(Type.Unknown({ description: 'Read-only: 400 validation_failed' }))])),
});

export const Quotas = Type.Object(
  {
    storage: Type.Object({ used_bytes: Type.Integer(), limit_bytes: Type.Integer() }),
    book_slots: Type.Array(
      Type.Object({ plan: Type.String(), purchased: Type.Integer(), used: Type.Integer(), available: Type.Integer() }),
    ),
  },
  { title: 'Quotas', description: 'Storage used and book slots held' },
);

export const SessionsRevoked = Type.Object(
  { revoked_count: Type.Integer({ description: 'API keys revoked, the calling one included' }) },
  { title: 'SessionsRevoked', description: 'Every API key you held is revoked' },
);
