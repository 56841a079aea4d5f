import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256 } from '../../lib/secrets.js';
import type { IdempotencyStore, StoredResponse } from '../../services/idempotency/idempotency-store.js';
import { isUnsafeMethod } from './authenticate.js';

export const MAX_KEY_LENGTH = 200;
const REPLAYED_HEADERS = ['etag', 'location', 'content-type'];

/**
 * Responses a retry with the same key must run again rather than replay:
 * anything answered before the route's own rules run (401, 412, 413, 415, 422,
 * 428, and the grace-period and plan gates), passing conditions (423, 429, key
 * in use, deletion queued), and 5xx.
 */
const NOT_STORED_STATUSES = new Set([401, 412, 413, 415, 422, 423, 428, 429]);
const NOT_STORED_CODES = new Set(['idempotency_key_in_use', 'deletion_queued', 'book_grace_period', 'feature_gated', 'rate_limited']);

export function isStorable(status: number, code: string | null): boolean {
  if (status >= 500 || NOT_STORED_STATUSES.has(status)) return false;
  return !(code && NOT_STORED_CODES.has(code));
}

/** `Idempotency-Key: "abc"` (a structured-header string) and `abc` are the same key. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let v = (Array.isArray(raw) ? raw[0] : raw).trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1).replace(/\\(["\\])/g, '$1');
  return v;
}

function fingerprint(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  const body = request.body === undefined || request.body === null ? {} : request.body;
  const perToken = request.routeOptions.config.idempotencyPerToken && request.auth?.method === 'api_key' ? request.auth.token.id : '';
  const bodyPart = Buffer.isBuffer(body) ? sha256(body.toString('base64')).toString('hex') : canonicalJson(body);
  return sha256(`${request.method} ${path}\n${perToken}\n${bodyPart}`).toString('hex');
}

function sendStored(reply: FastifyReply, stored: StoredResponse) {
  reply.code(stored.status);
  for (const [k, v] of Object.entries(stored.headers)) reply.header(k, v);
  reply.header('idempotent-replayed', 'true');
  return reply.send(stored.body);
}

/**
 * The Idempotency-Key mechanism, as two hooks: `claim` (preValidation, after
 * authentication and book access, before rate limits and schema validation)
 * and `record` (onSend). A replay is answered from the stored response.
 */
export function createIdempotencyHooks(store: IdempotencyStore) {
  async function claim(request: FastifyRequest, reply: FastifyReply) {
    request.idempotency = null;
    const rc = request.routeOptions.config;
    if (!isUnsafeMethod(request.method) || rc.idempotency === false || !request.auth) return;

    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (!key) throw new AppError('idempotency_key_required', 'This request needs a non-empty Idempotency-Key header (a UUIDv4 is suggested).');
    if (key.length > MAX_KEY_LENGTH) {
      throw new AppError('validation_failed', `The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters.`, {
        header: 'Idempotency-Key',
        max_length: MAX_KEY_LENGTH,
      });
    }
    const userId = request.auth.user.id;
    const fp = fingerprint(request);

    if (request.auth.method === 'api_key' && request.auth.revoked) {
      // Only a replay of the request that revoked this very key is answered.
      const stored = await store.lookup(userId, key, fp);
      if (!stored) throw errors.unauthorized();
      return sendStored(reply, stored);
    }

    const result = await store.claim(userId, key, fp);
    switch (result.kind) {
      case 'claimed':
        request.idempotency = { userId, key };
        return;
      case 'replay':
        return sendStored(reply, result.response);
      case 'in_use':
        throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.', null, {
          headers: { 'retry-after': '1' },
        });
      case 'reused':
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request (method, path or body). Use a new key.',
        );
    }
  }

  async function record(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const idem = request.idempotency;
    if (!idem) return payload;
    request.idempotency = null;
    const status = reply.statusCode;
    if (!isStorable(status, request.errorCode)) {
      await store.release(idem.userId, idem.key);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const h of REPLAYED_HEADERS) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    const body = idem.storedBody ?? (typeof payload === 'string' ? payload : payload === undefined || payload === null ? '' : String(payload));
    await store.complete(idem.userId, idem.key, { status, headers, body });
    return payload;
  }

  /**
   * For a resource that is gone (a deleted book answers 404 before the claim
   * runs): a retry of the very request that removed it still gets its stored
   * answer, as the key promises. Answers nothing when there is none.
   */
  async function replayIfStored(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if (!isUnsafeMethod(request.method) || !request.auth) return false;
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (!key || key.length > MAX_KEY_LENGTH) return false;
    const stored = await store.lookup(request.auth.user.id, key, fingerprint(request));
    if (!stored) return false;
    await sendStored(reply, stored);
    return true;
  }

  /** A request that ended without a response (client gone, crash in a hook) must not hold its key. */
  async function releaseOnAbort(request: FastifyRequest) {
    const idem = request.idempotency;
    if (idem) {
      request.idempotency = null;
      await store.release(idem.userId, idem.key).catch(() => {});
    }
  }

  return { claim, record, releaseOnAbort, replayIfStored };
}
