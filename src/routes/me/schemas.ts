import { Type } from '@sinclair/typebox';
import { NAME_PATTERN } from '../../lib/names.js';
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
  first_name: Type.Optional(Type.String({ maxLength: 150, pattern: NAME_PATTERN, description: 'No control characters (422)' })),
  last_name: Type.Optional(Type.String({ maxLength: 150, pattern: NAME_PATTERN, description: 'No control characters (422)' })),
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

export const ReauthBody = StrictObject(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Your account password' })),
    otp: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'The six-digit code from POST /me/delete/reauth/otp/', examples: ['042917'] })),
  },
  { minProperties: 1, maxProperties: 1, description: 'Exactly one of password and otp' },
);

export const ReauthGrant = Type.Object(
  {
    reauth_token: Type.String({ description: 'Send it to POST /me/delete/ within expires_in seconds; it works once' }),
    expires_in: Type.Integer({ description: 'Seconds the grant stays valid (300)', examples: [300] }),
  },
  { title: 'ReauthGrant', description: 'A single-use step-up grant for account deletion' },
);

export const ReauthCodeBody = Nullable(
  StrictObject({
    channel: Type.Optional(StringEnum(['email', 'sms'], { description: 'Where to send the code: your email (default) or the phone number on your account' })),
  }),
);

export const ReauthCodeSent = Type.Object(
  {
    channel: StringEnum(['email', 'sms']),
    sent_to: Type.String({ description: 'Where the code went, mostly hidden', examples: ['a••••@example.com'] }),
    expires_in: Type.Integer({ description: 'Seconds the code stays valid (600); it allows five attempts', examples: [600] }),
  },
  { title: 'ReauthCodeSent', description: 'A six-digit code is on its way' },
);

export const DeleteAccountBody = StrictObject(
  {
    reauth_token: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The grant from POST /me/delete/reauth/' })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Browser sessions only: your password instead of a grant' })),
  },
  { maxProperties: 1, description: 'reauth_token, or on a browser session password' },
);

export const AccountDeleted = Type.Object(
  { status: StringEnum(['deleted']) },
  { title: 'AccountDeleted', description: 'The account is deleted: signed out everywhere, personal data gone from it; books and memories are removed in the background' },
);

export const AccountDeletionQueued = Type.Object(
  {
    code: StringEnum(['deletion_queued']),
    message: Type.String(),
    details: Nullable(Type.Object({ retry_after_seconds: Type.Optional(Type.Integer()) }, { additionalProperties: true })),
    request_id: Type.String(),
  },
  {
    title: 'AccountDeletionQueued',
    description:
      'Deletion is queued: off-site backup erasure is not confirmed yet. The account keeps working and the service keeps retrying, then deletes it; retry with the same Idempotency-Key and body after Retry-After (the grant is given back)',
  },
);

/** The body of an action whose request the contract writes as `{}`: optional, and empty when sent. */
export const EmptyObjectBody = Nullable(StrictObject({}, { title: 'EmptyObject', description: 'Send {} or no body at all' }));

export const StreamParams = Type.Object({
  stream: Type.String({ description: 'onboarding, digests or activity_reminders; anything else is 400 unknown_stream with details.offered', examples: ['digests'] }),
});

export const UnsubscribeTokenQuery = Type.Object({
  token: Type.Optional(Type.String({ description: 'The token from the link in an onboarding mail; missing or invalid: 401 unauthorized' })),
});

/** What a mail client's one-click unsubscribe sends (RFC 8058): `List-Unsubscribe=One-Click`, form-encoded. */
export const OneClickForm = Type.Object(
  { 'List-Unsubscribe': Type.Optional(Type.String({ examples: ['One-Click'] })) },
  // The form comes from mail clients following RFC 8058, not from API clients: anything else in it is ignored.
  { additionalProperties: true },
);

export const Unsubscribed = Type.Object(
  {
    stream: Type.String({ examples: ['digests'] }),
    unsubscribed: Type.Boolean({ description: 'Always true' }),
    already_unsubscribed: Type.Boolean({ description: 'True when you had left this stream before' }),
  },
  { title: 'Unsubscribed', description: 'You will get no more mail of this stream' },
);
