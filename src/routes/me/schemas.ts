import { Type } from '@sinclair/typebox';
import { Etag, Id, Nullable, StrictObject, Timestamp } from '../../http/schemas/common.js';
import { BOOKS_SORTS, READ_ONLY_PROFILE_FIELDS } from '../../services/users/user-types.js';

export const BooksSort = Type.Union(BOOKS_SORTS.map((s) => Type.Literal(s)), { description: 'Order of GET /books/' });

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
  { title: 'Profile', additionalProperties: false },
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
    storage: Type.Object({ used_bytes: Type.Integer(), limit_bytes: Type.Integer() }, { additionalProperties: false }),
    book_slots: Type.Array(
      Type.Object(
        { plan: Type.String(), purchased: Type.Integer(), used: Type.Integer(), available: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'Quotas', additionalProperties: false },
);

export const SessionsRevoked = Type.Object({ revoked_count: Type.Integer() }, { title: 'SessionsRevoked', additionalProperties: false });
