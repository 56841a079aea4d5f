/**
 * The fetch underneath the typed client: an Idempotency-Key on every non-GET
 * call, kept across that call's retries, and the contract's retry advice.
 */
import { MemorybookConnectionError, retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  retries?: number;
  /** The first wait; it doubles with every retry: 1, 2, 4, 8 s by default. */
  baseDelayMs?: number;
  /** No computed wait is longer (default 60 s). */
  maxDelayMs?: number;
  /**
   * A Retry-After longer than this is not waited out: the answer goes back to
   * the caller as it is (a daily limit says "tomorrow"). Default 60 s.
   */
  maxRetryAfterMs?: number;
  /** Adds up to this fraction of each wait at random, so many clients do not come back at once (default 0.1). */
  jitter?: number;
}

export interface TransportOptions {
  retry?: RetryOptions | false;
  /** Each attempt's time limit; a timed-out attempt is retried like a dropped connection (default 60 s; 0: none). */
  timeoutMs?: number;
  /** Makes Idempotency-Keys (default: a random UUIDv4). */
  idempotencyKey?: () => string;
  /** The fetch to call (default: globalThis.fetch). */
  fetch?: (input: Request, init?: RequestInit) => Promise<Response>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const DEFAULT_RETRY: Required<RetryOptions> = { retries: 4, baseDelayMs: 1000, maxDelayMs: 60_000, maxRetryAfterMs: 60_000, jitter: 0.1 };

/** A random UUIDv4, also where crypto.randomUUID is missing (plain-http pages in browsers). */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * How long to wait before retrying this answer, or null for "do not retry".
 * Retried: 429 (rate limited), 408 (the request was too slow to arrive),
 * 409 with Retry-After (idempotency_key_in_use: the first request with this
 * key is still running) and every 5xx. Never another 4xx: those need a fix,
 * not a second try. A non-GET retry is safe because it carries the same key:
 * the server replays what happened, or runs it once.
 */
export function retryDelayMs(response: Pick<Response, 'status' | 'headers'>, retry: number, options: RetryOptions = {}): number | null {
  const o = { ...DEFAULT_RETRY, ...options };
  if (retry >= o.retries) return null;
  const { status } = response;
  const after = retryAfterSeconds(response.headers.get('retry-after'));
  const retryable = status === 429 || status === 408 || status >= 500 || (status === 409 && after !== null);
  if (!retryable) return null;
  if (after !== null && after * 1000 > o.maxRetryAfterMs) return null;
  return Math.max((after ?? 0) * 1000, backoffMs(retry, o));
}

/** The exponential wait before retry number `retry` (0-based), with jitter: 1, 2, 4, 8… s, capped. */
export function backoffMs(retry: number, options: RetryOptions = {}): number {
  const o = { ...DEFAULT_RETRY, ...options };
  const base = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** retry);
  return Math.round(base * (1 + Math.random() * o.jitter));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** fetch's "the connection failed or dropped" (TypeError in every runtime), or our own attempt timeout. */
function isConnectionFailure(err: unknown): boolean {
  return err instanceof TypeError || isTimeout(err);
}

const isTimeout = (err: unknown) => err instanceof DOMException && err.name === 'TimeoutError';

/** Nothing listens there, or no such host (Node names the cause; browsers do not): the request was never sent. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
function isRefused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | null)?.cause;
  return UNREACHABLE.has(String(cause?.code)) || (cause?.errors ?? []).some((e) => UNREACHABLE.has(String(e?.code)));
}

/** A refused connection is retried at most this often, at a quarter of the usual waits (0.25, 0.5, 1 s): a wrong address fails in about 2 s. */
const REFUSED_RETRIES = 3;

function connectionError(request: Request, attempts: number, err: unknown): MemorybookConnectionError {
  const { origin, pathname } = new URL(request.url);
  const code = isRefused(err) ? 'connection_refused' : isTimeout(err) ? 'timeout' : 'connection_failed';
  return new MemorybookConnectionError(code, request.method, origin + pathname, attempts, err);
}

/** A fetch that adds the Idempotency-Key and retries per the contract's advice; see retryDelayMs. */
export function createTransport(options: TransportOptions = {}): (request: Request, init?: RequestInit) => Promise<Response> {
  const baseFetch = options.fetch ?? ((input: Request, init?: RequestInit) => globalThis.fetch(input, init));
  const retry = options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? 60_000;
  const makeKey = options.idempotencyKey ?? newIdempotencyKey;

  return async function send(request: Request, init?: RequestInit): Promise<Response> {
    // The key goes on the request itself, so every attempt below sends the same one.
    if (!SAFE_METHODS.has(request.method.toUpperCase()) && !request.headers.get('idempotency-key')) {
      request.headers.set('idempotency-key', makeKey());
    }
    const callerSignal = request.signal;
    for (let attempt = 0; ; attempt++) {
      // Each attempt sends a copy: the original keeps its body for the next one.
      const copy = request.clone();
      const signal = timeoutMs > 0 ? AbortSignal.any([callerSignal, AbortSignal.timeout(timeoutMs)]) : callerSignal;
      let response: Response;
      try {
        response = await baseFetch(copy, { ...init, signal });
      } catch (err) {
        if (callerSignal.aborted || !isConnectionFailure(err)) throw err;
        // Refused: the request never left, and the service is not there; a few quick tries cover a restart.
        if (isRefused(err)) {
          if (attempt >= Math.min(retry.retries, REFUSED_RETRIES)) throw connectionError(request, attempt + 1, err);
          await sleep(backoffMs(attempt, { ...retry, baseDelayMs: retry.baseDelayMs / 4 }), callerSignal);
          continue;
        }
        // A dropped connection: the request may or may not have been carried out. A GET is safe to
        // send again; any other call carries its Idempotency-Key, so the server answers what happened.
        if (attempt >= retry.retries) throw connectionError(request, attempt + 1, err);
        await sleep(backoffMs(attempt, retry), callerSignal);
        continue;
      }
      const wait = retryDelayMs(response, attempt, retry);
      if (wait === null) return response;
      await response.body?.cancel().catch(() => {});
      await sleep(wait, callerSignal);
    }
  };
}
