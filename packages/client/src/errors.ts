import type { ValidationErrorBody } from './types.js';

export type ValidationIssue = ValidationErrorBody['detail'][number];

/** The code a 422 schema failure (`{detail}`, which has no code of its own) carries here. */
export const SCHEMA_VALIDATION_CODE = 'request_validation_failed';

/**
 * A 4xx or 5xx answer. Branch on `code` (the envelope's stable identifier);
 * quote `requestId` in a support request.
 */
export class MemorybookError extends Error {
  override readonly name = 'MemorybookError';
  readonly status: number;
  /**
   * The envelope's `code` (`not_found`, `precondition_failed`, …);
   * `request_validation_failed` for a 422 schema failure, whose fields are in
   * `detail`; `http_<status>` for an answer without the envelope (a proxy's
   * error page, say).
   */
  readonly code: string;
  /** The envelope's `details`: machine-readable specifics of the code, or null. */
  readonly details: Record<string, unknown> | null;
  /** The envelope's `request_id`, or the `X-Request-Id` header. */
  readonly requestId: string | null;
  /** For a 422 schema failure: one entry per offending field (`loc`, `msg`, `type`). Empty otherwise. */
  readonly detail: ValidationIssue[];
  /** The `Retry-After` header in seconds, when the answer had one (429, 409 idempotency_key_in_use, 503). */
  readonly retryAfterSeconds: number | null;
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const envelope = isEnvelope(body) ? body : null;
    const detail = !envelope && isValidationBody(body) ? body.detail : [];
    const code = envelope?.code ?? (detail.length ? SCHEMA_VALIDATION_CODE : `http_${response.status}`);
    const message =
      envelope?.message ??
      (detail.length ? `The request body does not match the schema: ${detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')}` : `HTTP ${response.status} ${response.statusText}`.trim());
    super(`${message} (${code}, HTTP ${response.status})`);
    this.status = response.status;
    this.code = code;
    this.details = envelope?.details ?? null;
    this.requestId = envelope?.request_id ?? response.headers.get('x-request-id');
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds(response.headers.get('retry-after'));
    this.response = response;
  }

  /** True when `err` is a MemorybookError, with this code when one is given. */
  static is(err: unknown, code?: string): err is MemorybookError {
    return err instanceof MemorybookError && (code === undefined || err.code === code);
  }
}

/** Processing of an uploaded file failed for good (`processing_status: failed`). */
export class MediaProcessingError extends Error {
  override readonly name = 'MediaProcessingError';
  constructor(readonly media: { id: string; processing_status: string }) {
    super(`Processing of media ${media.id} failed; upload the file again, or another one.`);
  }
}

/** A media file that will not become downloadable: found infected, or its processing failed. */
export class MediaUnavailableError extends Error {
  override readonly name = 'MediaUnavailableError';
  constructor(readonly media: { id: string; processing_status: string; scan_result: string }) {
    super(`Media ${media.id} cannot be downloaded: ${media.scan_result === 'infected' ? 'it was found infected' : `processing ${media.processing_status}`}.`);
  }
}

/** An export job ended `failed`. */
export class ExportFailedError extends Error {
  override readonly name = 'ExportFailedError';
  constructor(readonly job: { id: string; status: string; error?: string | null }) {
    super(`Export ${job.id} failed${job.error ? `: ${job.error}` : ''}.`);
  }
}

/** A wait (for processing, an export, a URL) that did not end in time. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}

type Result = { data?: unknown; error?: unknown; response: Response };
type DataOf<R extends Result> = [Exclude<R['data'], undefined>] extends [never] ? undefined : Exclude<R['data'], undefined>;

/**
 * The data of a successful openapi-fetch result, or a thrown
 * MemorybookError: `const book = ok(await mb.GET('/api/v1/books/{slug}/', …))`.
 */
export function ok<R extends Result>(result: R): DataOf<R> {
  if (!result.response.ok) throw new MemorybookError(result.response, result.error);
  return result.data as DataOf<R>;
}

/** Retry-After as seconds: delta-seconds or an HTTP-date. */
export function retryAfterSeconds(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function isEnvelope(body: unknown): body is { code: string; message: string; details: Record<string, unknown> | null; request_id: string } {
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string';
}

function isValidationBody(body: unknown): body is ValidationErrorBody {
  return typeof body === 'object' && body !== null && Array.isArray((body as { detail?: unknown }).detail);
}
