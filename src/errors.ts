import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The statuses an error is answered with: 4xx and 5xx only. A 202 (a
 * deletion queued) or a 308 (the path with its slash) is not an error, so the
 * table below cannot hold one (src/http/not-errors.ts answers those).
 */
type ErrorHttpStatus = 400 | 401 | 402 | 403 | 404 | 405 | 408 | 409 | 410 | 412 | 413 | 414 | 415 | 416 | 422 | 423 | 428 | 429 | 431 | 500 | 502 | 503;

/**
 * One error type for everything the API answers with a 4xx/5xx envelope.
 * Status comes from the code table, so a code always means the same status.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  query_param_invalid: 400,
  invalid_json: 400,
  cannot_remove_owner: 400,
  unknown_stream: 400,
  stream_not_token_supported: 400,
  bad_request: 400,
  unauthorized: 401,
  token_required: 401,
  payment_required: 402,
  member_limit_exceeded: 402,
  plan_limit_exceeded: 402,
  feature_gated: 403,
  insufficient_role: 403,
  book_grace_period: 403,
  reauth_required: 403,
  session_required: 403,
  csrf_failed: 403,
  invalid_credentials: 403,
  forbidden: 403,
  not_found: 404,
  user_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  name_taken: 409,
  already_a_member: 409,
  invitation_pending: 409,
  export_not_ready: 409,
  transcription_unavailable: 409,
  invalid_state: 409,
  idempotency_key_in_use: 409,
  conflict: 409,
  export_failed: 410,
  invitation_expired: 410,
  invitation_revoked: 410,
  invitation_accepted: 410,
  original_unavailable: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  idempotency_key_reused: 422,
  locked: 423,
  idempotency_key_required: 428,
  rate_limited: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  storage_unavailable: 502,
  service_unavailable: 503,
} as const satisfies Record<string, ErrorHttpStatus>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The codes answered with status S: `CodeWithStatus<409>` is the conflict family. */
export type CodeWithStatus<S extends ErrorHttpStatus> = { [K in ErrorCode]: (typeof ERROR_STATUS)[K] extends S ? K : never }[ErrorCode];

/**
 * Which documented operations can answer a code, read by the OpenAPI document
 * from each route's config (src/http/openapi.ts, `codesFor`), so a new route
 * gets its error examples without naming them:
 * - `every`: any request (framing, routing, the server itself);
 * - `signed_in`: routes behind credentials; `session_write`: unsafe methods
 *   a browser session may call (CSRF); `session_only`, `token_only`;
 * - `write`: unsafe methods (the service checks the values; the body's size
 *   and type); `json_body`: unsafe methods with a JSON body; `query`: routes
 *   with query parameters;
 * - `keyed`: routes that need an Idempotency-Key; `if_match`: routes that
 *   honour If-Match (they declare 412); `rate_limited`: routes with a limit;
 * - `book`: /books/{slug}/ routes; `book_role`: those that need more than
 *   seeing the book; `book_grace`: writes paused in a billing grace period;
 *   `book_feature`: those behind a plan feature;
 * - `named`: only routes that list the code in `config.errors`;
 * - `outside`: answered only outside the documented operations (signed file
 *   URLs, inbound webhooks, web pages), or not at present.
 */
export type ErrorScope =
  | 'every'
  | 'signed_in'
  | 'session_write'
  | 'session_only'
  | 'token_only'
  | 'write'
  | 'json_body'
  | 'query'
  | 'keyed'
  | 'if_match'
  | 'rate_limited'
  | 'book'
  | 'book_role'
  | 'book_grace'
  | 'book_feature'
  | 'named'
  | 'outside';

export interface ErrorInfo {
  /** What happened, for the catalogue. */
  meaning: string;
  /** What the caller does about it. */
  action: string;
  /** The shape of `details`: an object schema, or null when the code carries none. */
  details: TSchema | null;
  /** Where it can be answered (see ErrorScope). */
  where: ErrorScope[];
  /** A typical answer's message and details, for the document's examples. */
  example: { message: string; details?: Record<string, unknown> };
  /** Other statuses it is answered with on some routes. */
  otherStatuses?: number[];
}

const Str = (description: string) => Type.String({ description });
const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
/** `details` objects may gain fields within v1, as response objects do. */
const Details = (props: Parameters<typeof Type.Object>[0]) => Type.Object(props, { additionalProperties: true });
/** `details` that some answers of the code leave null. */
const MaybeDetails = (props: Parameters<typeof Type.Object>[0]) => Type.Union([Details(props), Type.Null()]);

/**
 * The error catalogue: every code's meaning, remedy and `details` shape. The
 * OpenAPI document, docs/errors.md and the typed client are generated from
 * it; adding a code to ERROR_STATUS without an entry here does not compile.
 */
export const ERROR_CATALOGUE: { [K in ErrorCode]: ErrorInfo } = {
  validation_failed: {
    meaning: 'A value was understood but is not acceptable: a blank text, an unknown theme, a file type the plan does not take, an Idempotency-Key over 200 characters.',
    action: 'Fix the value named in details.field (details.offered lists the accepted values when there is a fixed set); do not retry unchanged.',
    details: MaybeDetails({
      field: Opt(Str('The field at fault')),
      offered: Opt(Type.Array(Type.Unknown(), { description: 'The accepted values' })),
      reason: Opt(Str('A stable word for why, e.g. too_many_pixels')),
      value: Opt(Type.Unknown({ description: 'The value refused' })),
    }),
    where: ['write'],
    example: { message: 'Unknown theme "neon".', details: { field: 'theme', offered: ['storybook', 'modern_clean'] } },
  },
  query_param_invalid: {
    meaning: 'A query parameter is malformed: a limit outside 1 to 200, a cursor from another list, a date that does not parse.',
    action: 'Fix the parameter named in details.param; start a list again without its cursor.',
    details: Details({ param: Str('The parameter'), value: Type.Unknown({ description: 'What was sent' }) }),
    where: ['query'],
    example: { message: 'Query parameter "limit" is invalid.', details: { param: 'limit', value: '500' } },
  },
  invalid_json: {
    meaning: 'The body is not JSON (or not UTF-8, or nested deeper than the service reads).',
    action: 'Send a JSON body with Content-Type: application/json.',
    details: null,
    where: ['json_body'],
    example: { message: 'The request body is not valid JSON.' },
  },
  cannot_remove_owner: {
    meaning: "The book's owner cannot be removed from its members.",
    action: 'Remove someone else, or delete the book.',
    details: Details({ user_id: Str("The owner's user id") }),
    where: ['named'],
    example: { message: "The book's owner cannot be removed.", details: { user_id: '01935f4e-8c2a-7b1e-9a51-2f6f3c1d0e4b' } },
  },
  unknown_stream: {
    meaning: 'There is no mail stream by that name.',
    action: 'Use one of details.offered.',
    details: Details({ stream: Str('The name sent'), offered: Type.Array(Type.String(), { description: 'The streams there are' }) }),
    where: ['named'],
    example: { message: 'There is no mail stream "news".', details: { stream: 'news', offered: ['digest', 'notifications', 'product'] } },
  },
  stream_not_token_supported: {
    meaning: "The unsubscribe link's token cannot leave this stream; only a signed-in caller can.",
    action: 'Sign in and call POST /me/unsubscribe/{stream}/, or use one of details.token_streams.',
    details: Details({ stream: Str('The stream asked for'), token_streams: Type.Array(Type.String(), { description: 'The streams a token can leave' }) }),
    where: ['named'],
    example: { message: 'The unsubscribe link works for digest only; sign in to leave "product".', details: { stream: 'product', token_streams: ['digest'] } },
  },
  bad_request: {
    meaning: 'The request is malformed at the HTTP level: a Content-Length that does not match the body, an invalid header.',
    action: 'Fix the request; your HTTP library or a proxy in between may be at fault.',
    details: null,
    where: ['every'],
    example: { message: 'The Content-Length header does not match the body.' },
  },
  unauthorized: {
    meaning: 'No credentials, or an API key that is unknown, malformed or revoked, or a session that ended.',
    action: 'Send Authorization: Bearer <API key>; issue a new key if this one was revoked.',
    details: null,
    where: ['signed_in'],
    example: { message: 'Authentication credentials were not provided or are invalid.' },
  },
  token_required: {
    meaning: 'This route acts on the API key that calls it; a browser session cannot call it.',
    action: 'Call it with the API key as the bearer credential.',
    details: null,
    where: ['token_only'],
    example: { message: 'This route needs the API key itself as the bearer credential.' },
  },
  payment_required: {
    meaning: 'Creating a book on this plan needs a free book slot, and there is none.',
    action:
      'Buy a slot at details.checkout_url (or have the operator grant one: `memorybook slots grant`), then send the request again with a NEW Idempotency-Key: like every answer, this 402 is kept for its key (as Stripe keeps a declined payment), so the same key replays it.',
    details: Details({ plan: Str('The plan asked for'), checkout_url: Str('Where to buy a slot of that plan') }),
    where: ['named'],
    example: {
      message: 'No free plus book slot; buy one at the checkout URL, then retry.',
      details: { plan: 'plus', checkout_url: 'https://memorybook.example/billing/checkout/?plan=plus' },
    },
  },
  member_limit_exceeded: {
    meaning: "The book's plan allows no more members (the owner included).",
    action: 'Remove a member or revoke an invitation, or move the book to a larger plan; then send the request again with a new Idempotency-Key (this answer is kept for its key).',
    details: Details({ plan: Str("The book's plan"), limit: Type.Integer({ description: 'Members the plan allows' }) }),
    where: ['named'],
    example: { message: 'The free plan allows 5 members per book, the owner included.', details: { plan: 'free', limit: 5 } },
  },
  plan_limit_exceeded: {
    meaning: "A limit of the book's plan is reached: approved memories per book, media files per memory, storage.",
    action: 'Free something up (reject or delete), or move the book to a larger plan; then send the request again with a new Idempotency-Key (this answer is kept for its key).',
    details: MaybeDetails({
      plan: Opt(Str("The book's plan")),
      limit: Opt(Type.Union([Type.Number(), Type.String()], { description: 'The limit reached: a number, or the name of the limit (storage_bytes_per_book)' })),
    }),
    where: ['named'],
    example: {
      message: 'The free plan allows 50 approved memories per book; reject or delete one, or move the book to a larger plan.',
      details: { plan: 'free', limit: 50, approved: 50 },
    },
  },
  feature_gated: {
    meaning: "The book's plan does not include the feature this action needs.",
    action: 'Move the book to a plan with details.feature (GET /plans/ lists them).',
    details: Details({ feature: Str('The plan feature needed') }),
    where: ['book_feature'],
    example: { message: "The book's plan does not include api_access.", details: { feature: 'api_access' } },
  },
  insufficient_role: {
    meaning: 'You can see the book, but your role on it does not allow this action (or the row is another member\'s).',
    action: "Ask the book's owner for a higher role; GET /books/{slug}/permissions/ says what you may do.",
    details: null,
    where: ['book_role'],
    example: { message: 'This action needs the owner or admin role on the book.' },
  },
  book_grace_period: {
    meaning: "The book's billing is in its grace period: changes are paused until billing is settled (423 on approve).",
    action: "Settle the book's billing (GET /books/{slug}/billing/); reads still work.",
    details: null,
    where: ['book_grace'],
    otherStatuses: [423],
    example: { message: 'The book is in its billing grace period; changes are paused until billing is settled.' },
  },
  reauth_required: {
    meaning: 'Deleting the account needs a fresh step-up first.',
    action: 'POST /me/delete/reauth/ with your password or a one-time code, then send its reauth_token.',
    details: null,
    where: ['named'],
    example: { message: 'Deleting the account needs a fresh step-up: POST /me/delete/reauth/ with your password or a one-time code, then send its reauth_token here.' },
  },
  session_required: {
    meaning: 'Only a signed-in browser session can call this route (issuing API keys).',
    action: 'Call it from the web app, signed in.',
    details: null,
    where: ['session_only'],
    example: { message: 'This route needs a signed-in browser session; an API key cannot call it.' },
  },
  csrf_failed: {
    meaning: 'A browser-session write without a valid X-CSRFToken header or a same-origin Referer.',
    action: "Send the session's CSRF token in X-CSRFToken from a page of the service; API keys are not affected.",
    details: null,
    where: ['session_write'],
    example: { message: 'CSRF check failed: missing X-CSRFToken header.' },
  },
  invalid_credentials: {
    meaning: 'The password or one-time code given for a step-up is not correct.',
    action: 'Try again with the right password, or ask for a new code.',
    details: null,
    where: ['named'],
    example: { message: 'The password or code is not correct.' },
  },
  forbidden: {
    meaning: 'Refused outright: a signed file URL that lapsed or was altered, an inbound webhook whose signature does not verify or that was delivered before.',
    action: 'For a file, read its resource again for a fresh URL; for a webhook, check the signing secret.',
    details: MaybeDetails({ reason: Opt(Str('Why, for signed URLs: expired, bad_signature, …')), provider: Opt(Str('The webhook provider')) }),
    where: ['outside'],
    example: { message: 'This link has expired.', details: { reason: 'expired' } },
  },
  not_found: {
    meaning: 'No such resource, or one you cannot see (a book you are not a member of answers exactly like a missing one).',
    action: 'Check the slug or id, and which account the API key belongs to.',
    details: null,
    where: ['every'],
    example: { message: 'The requested book was not found.' },
  },
  user_not_found: {
    meaning: 'No user matches the email or user id given.',
    action: 'Invite them instead (POST /books/{slug}/invitations/): they need an account to be added directly.',
    details: null,
    where: ['named'],
    example: { message: 'No user matches that email or user_id.' },
  },
  method_not_allowed: {
    meaning: 'The path exists but does not answer this method.',
    action: 'Use a method listed in details.allowed (and the Allow header).',
    details: Details({ allowed: Type.Array(Type.String(), { description: 'The methods this path answers' }) }),
    where: ['every'],
    example: { message: 'Method PUT is not allowed here; use GET, PATCH, DELETE.', details: { allowed: ['GET', 'PATCH', 'DELETE'] } },
  },
  request_timeout: {
    meaning: 'The request (or an upload) did not arrive in time and was discarded.',
    action: 'Send it again, with the same Idempotency-Key.',
    details: null,
    where: ['every'],
    example: { message: 'The request was not received in time.' },
  },
  name_taken: {
    meaning: 'You already have an API key with this name.',
    action: 'Pick another name, or revoke the old key.',
    details: Details({ field: Str('The field at fault') }),
    where: ['named'],
    example: { message: 'You already have an API token with this name.', details: { field: 'name' } },
  },
  already_a_member: {
    meaning: 'That user is already a member of the book.',
    action: 'Nothing to do; change their role by removing and adding them again if needed.',
    details: Details({ user_id: Str('The member') }),
    where: ['named'],
    example: { message: 'That user is already a member of this book.', details: { user_id: '01935f4e-8c2a-7b1e-9a51-2f6f3c1d0e4b' } },
  },
  invitation_pending: {
    meaning: 'A pending invitation for this email or phone number already exists on the book.',
    action: 'Revoke details.invitation_id to send a new one, or let the first one stand.',
    details: Details({ invitation_id: Str('The pending invitation') }),
    where: ['named'],
    example: { message: 'A pending invitation for this identifier already exists; revoke it to send a new one.', details: { invitation_id: '01935f4e-8c2a-7b1e-9a51-2f6f3c1d0e4b' } },
  },
  export_not_ready: {
    meaning: 'The export is still being rendered: it has no artifact yet.',
    action: 'Poll GET /books/{slug}/exports/{job_id}/ until its status is complete.',
    details: Details({ status: Str("The job's status (pending or processing)") }),
    where: ['named'],
    example: { message: 'The export is still being rendered; poll the job until its status is complete.', details: { status: 'processing' } },
  },
  transcription_unavailable: {
    meaning: 'Transcription is not set up on this server: the operator has not configured a transcription endpoint (TRANSCRIPTION_URL).',
    action: 'Nothing to retry; ask the operator to configure transcription. The recording itself is kept and can be played.',
    details: null,
    where: ['named'],
    example: { message: 'Transcription is not configured on this server.' },
  },
  invalid_state: {
    meaning: "The resource's state does not allow this action: pinning a memory that is not approved, revoking an invitation already accepted.",
    action: 'Read the resource; details.status is its state and details.allowed_from the states the action needs.',
    details: Details({
      status: Opt(Str('The current state')),
      action: Opt(Str('The action refused')),
      allowed_from: Opt(Type.Array(Type.String(), { description: 'States from which it is allowed' })),
    }),
    where: ['named'],
    example: { message: 'Only an approved submission can be pinned; this one is pending.', details: { action: 'pin', status: 'pending', allowed_from: ['approved'] } },
  },
  idempotency_key_in_use: {
    meaning: 'A request with this Idempotency-Key is still running.',
    action: 'Retry after Retry-After with the same key and body: you get its answer.',
    details: null,
    where: ['keyed'],
    example: { message: 'A request with this Idempotency-Key is still being processed; retry shortly.' },
  },
  conflict: {
    meaning: 'The change conflicts with something that exists: no free slug for this title, an account with this email.',
    action: 'Change the conflicting value (details.field when known) and send it again.',
    details: MaybeDetails({ field: Opt(Str('The field at fault')), constraint: Opt(Str('The rule broken')) }),
    where: ['named'],
    example: { message: 'Could not find a free slug for this title; try a slightly different title.' },
  },
  export_failed: {
    meaning: 'The export will never have an artifact: it failed, expired (files are kept 7 days) or its file is gone.',
    action: 'Request a new export (POST /books/{slug}/exports/).',
    details: Details({
      status: Str("The job's status"),
      reason: Type.Unsafe<'failed' | 'expired' | 'missing'>({ type: 'string', enum: ['failed', 'expired', 'missing'], description: 'Why there is no artifact' }),
      error: Opt(Type.Union([Type.String(), Type.Null()], { description: 'What went wrong, for a failed job' })),
      expired_at: Opt(Type.Union([Type.String(), Type.Null()], { description: 'When the artifact expired' })),
    }),
    where: ['named'],
    example: { message: 'The export has expired: files are kept 7 days. Request a new export.', details: { status: 'complete', reason: 'expired', expired_at: '2026-11-28T10:00:00.123456Z' } },
  },
  original_unavailable: {
    meaning: 'The original bytes of this media file are not available, and will not be: the file was found infected (never handed out), or its original is no longer in the store.',
    action: 'Do not retry. The media read (GET …/media/{media_id}/) says what can still be shown; an infected file can only be deleted.',
    details: Details({
      reason: Type.Unsafe<'infected' | 'missing'>({ type: 'string', enum: ['infected', 'missing'], description: 'Why there is no original' }),
      media_id: Str('The media file'),
    }),
    where: ['named'],
    example: { message: 'The original of this file is not available: it was found infected and is never handed out.', details: { reason: 'infected', media_id: '01935f4e-9d10-7c44-8b2e-5a1c7e3f9b20' } },
  },
  invitation_expired: {
    meaning: 'The invitation link has expired.',
    action: 'Ask the person who invited you for a new invitation.',
    details: MaybeDetails({ expired_at: Opt(Type.Union([Type.String(), Type.Null()], { description: 'When it expired' })) }),
    where: ['outside'],
    example: { message: 'This invitation has expired. Ask the person who invited you to send a new one.' },
  },
  invitation_revoked: {
    meaning: "The invitation was withdrawn by the book's owner or an admin.",
    action: 'Ask for a new invitation.',
    details: null,
    where: ['outside'],
    example: { message: "This invitation was withdrawn by the book's owner or an admin." },
  },
  invitation_accepted: {
    meaning: 'The invitation was already accepted by someone else.',
    action: 'Ask for an invitation of your own.',
    details: null,
    where: ['outside'],
    example: { message: 'This invitation has already been accepted by someone else.' },
  },
  precondition_failed: {
    meaning: 'If-Match did not match: someone changed the resource since you read it.',
    action: 'Read it again (or use details.current_etag), reapply your change, and send it with the new etag.',
    details: Details({ current_etag: Str("The resource's etag now") }),
    where: ['if_match'],
    example: { message: 'The resource has changed since the given If-Match ETag.', details: { current_etag: '"2026-11-21T10:05:00.654321Z"' } },
  },
  payload_too_large: {
    meaning: 'The body (or an uploaded file) is larger than the service or the plan takes.',
    action: 'Send less: details.limit_bytes is the limit when a plan sets it.',
    details: MaybeDetails({ limit_bytes: Opt(Type.Integer({ description: 'The largest size taken' })) }),
    where: ['write'],
    example: { message: 'The request body is too large.' },
  },
  uri_too_long: {
    meaning: 'The request URL is longer than the server reads.',
    action: 'Shorten the query (fewer or shorter parameters).',
    details: null,
    where: ['every'],
    example: { message: 'The request URL is too long.' },
  },
  unsupported_media_type: {
    meaning: 'The body is not in a format this route takes (JSON, or multipart/form-data for uploads).',
    action: 'Send Content-Type: application/json (multipart/form-data for an upload).',
    details: MaybeDetails({ content_type: Opt(Type.Union([Type.String(), Type.Null()], { description: 'The Content-Type sent' })) }),
    where: ['write'],
    example: { message: 'Send the body as application/json.', details: { content_type: 'text/plain' } },
  },
  range_not_satisfiable: {
    meaning: 'A file download asked for a byte range outside the file.',
    action: 'Ask for a range within details.size_bytes.',
    details: Details({ size_bytes: Type.Integer({ description: "The file's size" }) }),
    where: ['outside'],
    example: { message: 'The requested range lies outside the file.', details: { size_bytes: 1024 } },
  },
  idempotency_key_reused: {
    meaning: 'This Idempotency-Key was already used with another request (method, path or body).',
    action: 'Use a new key for every new request; reuse a key only to retry the same request.',
    details: null,
    where: ['keyed'],
    example: { message: 'This Idempotency-Key was already used with a different request (method, path or body). Use a new key.' },
  },
  locked: {
    meaning: 'The resource is locked. Not answered at present (a book in its grace period answers book_grace_period, 423 on approve).',
    action: 'Retry later.',
    details: null,
    where: ['outside'],
    example: { message: 'The resource is locked.' },
  },
  idempotency_key_required: {
    meaning: 'This write needs an Idempotency-Key header.',
    action: 'Send Idempotency-Key: <a new UUIDv4> (the typed client does it for you).',
    details: null,
    where: ['keyed'],
    example: { message: 'This request needs a non-empty Idempotency-Key header (a UUIDv4 is suggested).' },
  },
  rate_limited: {
    meaning: 'Too many requests of this kind (or more exports than are allowed at once).',
    action: 'Wait for the Retry-After header, then retry; X-RateLimit-Limit says how many are allowed.',
    details: MaybeDetails({
      limit: Opt(Type.Integer({ description: 'Requests allowed in the window' })),
      window_seconds: Opt(Type.Integer({ description: "The window's length" })),
    }),
    where: ['rate_limited'],
    example: { message: 'Too many requests; retry after the time in the Retry-After header.', details: { limit: 30, window_seconds: 3600 } },
  },
  request_header_fields_too_large: {
    meaning: 'The request headers are larger than the server reads.',
    action: 'Send fewer or smaller headers (cookies, most often).',
    details: null,
    where: ['every'],
    example: { message: 'The request headers are too large.' },
  },
  internal_error: {
    meaning: 'Something failed on our side; nothing about the request is at fault.',
    action: 'Retry with backoff; if it persists, report it with the request_id.',
    details: null,
    where: ['every'],
    example: { message: 'An internal error occurred. Quote the request_id when reporting it.' },
  },
  storage_unavailable: {
    meaning: 'The file store did not answer in time: a download link could not be made. The file is kept.',
    action: 'Retry after Retry-After with backoff (1, 2, 4, 8 s, at most 60 s).',
    details: null,
    where: ['named'],
    example: { message: 'A download link could not be made just now; the file is kept. Retry with backoff (1, 2, 4, 8 s, at most 60 s).' },
  },
  service_unavailable: {
    meaning:
      'The service is busy (the database timed out or deadlocked), shutting down, or cannot reach a dependency just now (its database is down or restarting, ' +
      'its file store is unreachable or throttling). Nothing was done, or what was done is kept under the Idempotency-Key.',
    action: 'Retry after Retry-After with the same Idempotency-Key: a create cut off by the outage is done once.',
    details: null,
    where: ['every'],
    example: { message: 'The service is busy; retry after the time in the Retry-After header.' },
  },
};

/** The codes a route can name in `config.errors` (its own statuses follow from them). */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorEnvelope {
  code: string;
  message: string;
  details: Record<string, unknown> | null;
  request_id: string;
}

/** What the service depends on and may find down: an answer it causes names it in the log and the metrics, never to the client. */
export type Dependency = 'database' | 'object_store' | 'mail';

/** What an error carries besides its code, message and details. */
export interface ErrorOptions {
  headers?: Record<string, string>;
  cause?: unknown;
  /** A condition that may pass on its own: never stored as a key's answer (see AppError.transient). */
  transient?: boolean;
  dependency?: Dependency;
}

/** A code's other status, where the catalogue gives it one (book_grace_period: 423 on approve). */
type OtherStatus<C extends ErrorCode> = C extends 'book_grace_period' ? 403 | 423 : never;

type Details = Record<string, unknown> | null;

/**
 * Raised through `errors` below (one helper per code); `new AppError(` is
 * refused by the lint outside this file. The code is in the type, so a
 * helper's error is known to carry its code.
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** A condition that may pass on its own (space freed, a race lost): never stored as a key's answer, so a retry runs again. */
  readonly transient: boolean;
  /** Set when a dependency was down or throttling (see errors.dependencyDown). */
  readonly dependency: Dependency | undefined;
  constructor(
    readonly code: C,
    message: string,
    readonly details: Details = null,
    options: ErrorOptions & { status?: OtherStatus<C> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.transient = options.transient ?? false;
    this.dependency = options.dependency;
  }
}

/** Seconds a client is told to wait when a dependency is down: long enough for a restart or a failover to show, short enough to notice the return. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

const DEPENDENCY_WORDS: Record<Dependency, string> = {
  database: 'its database',
  object_store: 'its file store',
  mail: 'its mail server',
};

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** The helper of a code whose message, details and options the caller gives. */
const raise =
  <C extends ErrorCode>(code: C) =>
  (message: string, details: Details = null, options: ErrorOptions = {}): AppError<C> =>
    new AppError(code, message, details, options);

/**
 * One helper per code, as Stripe's and GitHub's SDKs have one error per
 * kind: the helper fixes the code, so the code fixes the status, and no call
 * can pair a code with another status. A few shape their message, details or
 * headers for the common case (notFound, unauthorized, rateLimited, …).
 */
export const errors = {
  // 400
  validation: raise('validation_failed'),
  queryParam: (param: string, value: unknown, message?: string) =>
    new AppError('query_param_invalid', message ?? `Query parameter "${param}" is invalid.`, { param, value }),
  invalidJson: raise('invalid_json'),
  cannotRemoveOwner: raise('cannot_remove_owner'),
  unknownStream: raise('unknown_stream'),
  streamNotTokenSupported: raise('stream_not_token_supported'),
  badRequest: raise('bad_request'),
  // 401
  unauthorized: (message = 'Authentication credentials were not provided or are invalid.') =>
    new AppError('unauthorized', message, null, { headers: { 'www-authenticate': 'Bearer' } }),
  tokenRequired: raise('token_required'),
  // 402
  paymentRequired: raise('payment_required'),
  memberLimitExceeded: raise('member_limit_exceeded'),
  planLimitExceeded: raise('plan_limit_exceeded'),
  // 403
  featureGated: raise('feature_gated'),
  insufficientRole: (needed: string) => new AppError('insufficient_role', `This action needs the ${needed} role on the book.`),
  /** 403, or 423 where the action's rule says so (approving). */
  bookGracePeriod: (message: string, status: 403 | 423 = 403) => new AppError('book_grace_period', message, null, { status }),
  reauthRequired: raise('reauth_required'),
  sessionRequired: raise('session_required'),
  csrfFailed: (why: string) => new AppError('csrf_failed', `CSRF check failed: ${why}.`),
  invalidCredentials: raise('invalid_credentials'),
  forbidden: raise('forbidden'),
  // 404, 405, 408
  notFound: (what = 'resource', message = `The requested ${what} was not found.`) => new AppError('not_found', message),
  userNotFound: raise('user_not_found'),
  methodNotAllowed: raise('method_not_allowed'),
  requestTimeout: raise('request_timeout'),
  // 409
  nameTaken: raise('name_taken'),
  alreadyAMember: raise('already_a_member'),
  invitationPending: raise('invitation_pending'),
  exportNotReady: raise('export_not_ready'),
  transcriptionUnavailable: raise('transcription_unavailable'),
  invalidState: raise('invalid_state'),
  idempotencyKeyInUse: raise('idempotency_key_in_use'),
  conflict: raise('conflict'),
  // 410
  exportFailed: raise('export_failed'),
  invitationExpired: raise('invitation_expired'),
  invitationRevoked: raise('invitation_revoked'),
  invitationAccepted: raise('invitation_accepted'),
  originalUnavailable: raise('original_unavailable'),
  // 412 … 431
  /** With the resource's etag now; a signed file link has none to give (null details). */
  preconditionFailed: (currentEtag: string | null, message = 'The resource has changed since the given If-Match ETag.') =>
    new AppError('precondition_failed', message, currentEtag === null ? null : { current_etag: currentEtag }),
  payloadTooLarge: raise('payload_too_large'),
  uriTooLong: raise('uri_too_long'),
  unsupportedMediaType: raise('unsupported_media_type'),
  rangeNotSatisfiable: raise('range_not_satisfiable'),
  idempotencyKeyReused: raise('idempotency_key_reused'),
  locked: raise('locked'),
  idempotencyKeyRequired: raise('idempotency_key_required'),
  /** Retry-After from the wait; `own` gives another message, or headers over the default ones (X-RateLimit-*, an exact Retry-After). */
  rateLimited: (retryAfterSeconds: number, details: Details = null, own: { message?: string; headers?: Record<string, string> } = {}) =>
    new AppError('rate_limited', own.message ?? 'Too many requests; retry after the time in the Retry-After header.', details, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))), ...own.headers },
    }),
  requestHeaderFieldsTooLarge: raise('request_header_fields_too_large'),
  // 5xx
  internalError: raise('internal_error'),
  storageUnavailable: raise('storage_unavailable'),
  /** Always with Retry-After (5 s unless the caller knows better): a 503 tells the client when to come back. */
  serviceUnavailable: (message: string, details: Details = null, options: ErrorOptions = {}) =>
    new AppError('service_unavailable', message, details, {
      ...options,
      headers: { 'retry-after': String(DEPENDENCY_RETRY_AFTER_SECONDS), ...options.headers },
    }),
  /**
   * 503 service_unavailable with Retry-After: a dependency is down, cut the
   * connection or is throttling. Transient (never a key's stored answer), so
   * a retry with the same Idempotency-Key runs again, or replays the answer
   * the first attempt committed.
   */
  dependencyDown: (dependency: Dependency, cause: unknown) =>
    new AppError(
      'service_unavailable',
      `The service cannot reach ${DEPENDENCY_WORDS[dependency]} just now; retry after the time in the Retry-After header, with the same Idempotency-Key.`,
      null,
      { headers: { 'retry-after': String(DEPENDENCY_RETRY_AFTER_SECONDS) }, cause, transient: true, dependency },
    ),
};

/** Every code has its helper: a code added to the table without one does not compile (the error names it). */
type Raised = ReturnType<(typeof errors)[keyof typeof errors]>['code'];
const everyCodeHasAHelper: [Exclude<ErrorCode, Raised>] extends [never] ? true : { missing: Exclude<ErrorCode, Raised> } = true;
void everyCodeHasAHelper;
