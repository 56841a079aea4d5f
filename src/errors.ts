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
  invalid_state: 409,
  idempotency_key_in_use: 409,
  conflict: 409,
  export_failed: 410,
  invitation_expired: 410,
  invitation_revoked: 410,
  invitation_accepted: 410,
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
  deletion_queued: 202,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorEnvelope {
  code: string;
  message: string;
  details: Record<string, unknown> | null;
  request_id: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** A condition that may pass on its own (space freed, a race lost): never stored as a key's answer, so a retry runs again. */
  readonly transient: boolean;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> | null = null,
    options: { status?: number; headers?: Record<string, string>; cause?: unknown; transient?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.transient = options.transient ?? false;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

export const errors = {
  notFound: (what = 'resource') => new AppError('not_found', `The requested ${what} was not found.`),
  unauthorized: (message = 'Authentication credentials were not provided or are invalid.') =>
    new AppError('unauthorized', message, null, { headers: { 'www-authenticate': 'Bearer' } }),
  validation: (message: string, details: Record<string, unknown> | null = null) =>
    new AppError('validation_failed', message, details),
  queryParam: (param: string, value: unknown, message?: string) =>
    new AppError('query_param_invalid', message ?? `Query parameter "${param}" is invalid.`, { param, value }),
  insufficientRole: (needed: string) =>
    new AppError('insufficient_role', `This action needs the ${needed} role on the book.`),
  preconditionFailed: (currentEtag: string) =>
    new AppError('precondition_failed', 'The resource has changed since the given If-Match ETag.', {
      current_etag: currentEtag,
    }),
  conflict: (code: ErrorCode, message: string, details: Record<string, unknown> | null = null) =>
    new AppError(code, message, details),
  rateLimited: (retryAfterSeconds: number, details: Record<string, unknown> | null = null) =>
    new AppError('rate_limited', 'Too many requests; retry after the time in the Retry-After header.', details, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    }),
  csrfFailed: (why: string) => new AppError('csrf_failed', `CSRF check failed: ${why}.`),
};
