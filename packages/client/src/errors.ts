/**
 * Every failure the client reports is a MemorybookError: an answer of the
 * service (MemorybookApiError), no answer at all (MemorybookConnectionError),
 * or a helper's wait that ended badly (processing failed, an export failed,
 * a wait timed out). Branch on `code`; on an API error `details` is typed
 * by it:
 *
 *     catch (err) {
 *       if (err instanceof MemorybookError && err.code === 'precondition_failed') retryWith(err.details.current_etag);
 *     }
 */
import type { components, ValidationErrorBody } from './types.js';

export type ValidationIssue = ValidationErrorBody['detail'][number];

type Envelope = components['schemas']['ErrorEnvelope'];
/** Every code the service answers in its error envelope (the error catalogue, docs/errors.md). */
export type ErrorCode = Envelope['code'];
/** The `details` of a code: its own shape, or null for codes that carry none. */
export type ErrorDetails<C extends ErrorCode> = Extract<Envelope, { code: C }>['details'];

/** The code a 422 schema failure (`{detail}`, which has no code of its own) carries here. */
export const SCHEMA_VALIDATION_CODE = 'request_validation_failed';

/**
 * The codes of an API error: the service's, `request_validation_failed` for a
 * 422 schema failure (fields in `detail`), `http_<status>` for an answer
 * without the envelope (a proxy's error page, say).
 */
export type ApiErrorCode = ErrorCode | typeof SCHEMA_VALIDATION_CODE | `http_${number}`;
type DetailsOf<C extends ApiErrorCode> = C extends ErrorCode ? ErrorDetails<C> : null;

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** What every failure has; see MemorybookError for the type to use. */
export class MemorybookErrorBase extends Error {
  override name = 'MemorybookError';
  /** Stable identifier: branch on it. */
  readonly code: string;
  /** The HTTP status, for an answer of the service; null otherwise. */
  readonly status: number | null = null;
  /** The request's id (quote it in a support request), when the service answered. */
  readonly requestId: string | null = null;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** What it prints as (console.log, an uncaught error): one line of facts under the stack, never a whole Response. */
  [INSPECT](): string {
    const facts: Record<string, unknown> = { code: this.code };
    for (const k of ['status', 'requestId', 'details', 'attempts', 'url'] as const) {
      const v = (this as Record<string, unknown>)[k];
      if (v !== null && v !== undefined) facts[k] = v;
    }
    return `${this.stack ?? `${this.name}: ${this.message}`}\n  ${JSON.stringify(facts)}`;
  }
}

/** An answer of the service with a 4xx or 5xx status. */
export class ApiError<C extends ApiErrorCode = ApiErrorCode> extends MemorybookErrorBase {
  override name = 'MemorybookApiError';
  declare readonly code: C;
  override readonly status: number;
  override readonly requestId: string | null;
  /** The envelope's `details`: the specifics of `code`, typed by it. */
  readonly details: DetailsOf<C>;
  /** For a 422 schema failure: one entry per offending field (`loc`, `msg`, `type`). Empty otherwise. */
  readonly detail: ValidationIssue[];
  /** The `Retry-After` header in seconds, when the answer had one (429, 409 idempotency_key_in_use, 503). */
  readonly retryAfterSeconds: number | null;
  /** The raw answer (its body already read); kept out of printing. */
  declare readonly response: Response;

  constructor(response: Response, body: unknown) {
    const envelope = isEnvelope(body) ? body : null;
    const detail = !envelope && isValidationBody(body) ? body.detail : [];
    const code = envelope?.code ?? (detail.length ? SCHEMA_VALIDATION_CODE : `http_${response.status}`);
    const message =
      envelope?.message ??
      (detail.length ? `The request body does not match the schema: ${detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')}` : `HTTP ${response.status} ${response.statusText}`.trim());
    super(code, `${message} (${code}, HTTP ${response.status})`);
    this.status = response.status;
    this.details = (envelope?.details ?? null) as DetailsOf<C>;
    this.requestId = envelope?.request_id ?? response.headers.get('x-request-id');
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds(response.headers.get('retry-after'));
    Object.defineProperty(this, 'response', { value: response, enumerable: false });
  }
}

/** No answer: the connection was refused or dropped, or every attempt timed out, after the client's retries. */
export class MemorybookConnectionError extends MemorybookErrorBase {
  override name = 'MemorybookConnectionError';
  declare readonly code: 'connection_refused' | 'connection_failed' | 'timeout';
  constructor(
    code: 'connection_refused' | 'connection_failed' | 'timeout',
    readonly method: string,
    readonly url: string,
    /** Attempts made, the first included. */
    readonly attempts: number,
    cause: unknown,
  ) {
    const what = code === 'connection_refused' ? 'the connection was refused' : code === 'timeout' ? 'no answer in time' : 'the connection failed';
    super(code, `${method} ${url}: ${what} (${attempts} attempt${attempts === 1 ? '' : 's'}). Is the service running at this address?`, { cause });
  }
}

/** Processing of an uploaded file failed for good (`processing_status: failed`). */
export class MediaProcessingError extends MemorybookErrorBase {
  override name = 'MediaProcessingError';
  declare readonly code: 'media_processing_failed';
  constructor(readonly media: { id: string; processing_status: string }) {
    super('media_processing_failed', `Processing of media ${media.id} failed; upload the file again, or another one.`);
  }
}

/** A media file that will not become downloadable: found infected, or its processing failed. */
export class MediaUnavailableError extends MemorybookErrorBase {
  override name = 'MediaUnavailableError';
  declare readonly code: 'media_unavailable';
  constructor(readonly media: { id: string; processing_status: string; scan_result: string }) {
    super('media_unavailable', `Media ${media.id} cannot be downloaded: ${media.scan_result === 'infected' ? 'it was found infected' : `processing ${media.processing_status}`}.`);
  }
}

/** An export job ended `failed`. */
export class ExportFailedError extends MemorybookErrorBase {
  override name = 'ExportFailedError';
  declare readonly code: 'export_job_failed';
  constructor(readonly job: { id: string; status: string; error?: string | null }) {
    super('export_job_failed', `Export ${job.id} failed${job.error ? `: ${job.error}` : ''}.`);
  }
}

/** A wait (for processing, an export, a URL) that did not end in time. */
export class WaitTimeoutError extends MemorybookErrorBase {
  override name = 'WaitTimeoutError';
  declare readonly code: 'wait_timeout';
  constructor(message: string) {
    super('wait_timeout', message);
  }
}

/** An API error, as a union over its codes: `err.code === 'precondition_failed'` narrows `err.details`. */
export type MemorybookApiError = { [C in ErrorCode]: ApiError<C> }[ErrorCode] | ApiError<typeof SCHEMA_VALIDATION_CODE> | ApiError<`http_${number}`>;

/** Every failure the client reports, as a union over `code`. */
export type MemorybookError = MemorybookApiError | MemorybookConnectionError | MediaProcessingError | MediaUnavailableError | ExportFailedError | WaitTimeoutError;
/** Every code a MemorybookError can have. */
export type MemorybookErrorCode = MemorybookError['code'];
/** The failures that can have this code (a connection error's code is one of three). */
export type MemorybookErrorWithCode<C extends MemorybookErrorCode> = MemorybookError extends infer E
  ? E extends { code: infer K }
    ? C extends K
      ? E & { readonly code: C }
      : never
    : never
  : never;

/**
 * The base class of every failure: `err instanceof MemorybookError` (or
 * `MemorybookError.is(err, 'not_found')`) narrows to the union of failures.
 */
export const MemorybookError = MemorybookErrorBase as unknown as (abstract new (code: string, message: string) => MemorybookErrorBase) & {
  readonly prototype: MemorybookError;
  /** True when `err` is a MemorybookError, with this code when one is given. */
  is<C extends MemorybookErrorCode = MemorybookErrorCode>(err: unknown, code?: C): err is MemorybookErrorWithCode<C>;
};
Object.defineProperty(MemorybookErrorBase, 'is', {
  value: (err: unknown, code?: string) => err instanceof MemorybookErrorBase && (code === undefined || err.code === code),
});

/** The class of an answer of the service: `err instanceof MemorybookApiError` narrows to the union over its codes. */
export const MemorybookApiError = ApiError as unknown as {
  new (response: Response, body: unknown): MemorybookApiError;
  readonly prototype: MemorybookApiError;
};

type Result = { data?: unknown; error?: unknown; response: Response };
type DataOf<R extends Result> = [Exclude<R['data'], undefined>] extends [never] ? undefined : Exclude<R['data'], undefined>;

/**
 * The data of a successful openapi-fetch result, or a thrown
 * MemorybookApiError: `const book = ok(await mb.GET('/api/v1/books/{slug}/', …))`.
 */
export function ok<R extends Result>(result: R): DataOf<R> {
  if (!result.response.ok) throw new MemorybookApiError(result.response, result.error);
  return result.data as DataOf<R>;
}

/** Retry-After as seconds: delta-seconds or an HTTP-date. */
export function retryAfterSeconds(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function isEnvelope(body: unknown): body is { code: ErrorCode; message: string; details: Record<string, unknown> | null; request_id: string } {
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string';
}

function isValidationBody(body: unknown): body is ValidationErrorBody {
  return typeof body === 'object' && body !== null && Array.isArray((body as { detail?: unknown }).detail);
}
