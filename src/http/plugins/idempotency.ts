import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Db, OpenTransaction, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { sha256 } from '../../lib/secrets.js';
import type { IdempotencyStore, StoredResponse } from '../../services/idempotency/idempotency-store.js';
import { isUnsafeMethod } from './authenticate.js';
import { DECLARED_HEADERS, isKeyedRoute, type PluginHeaders } from '../header-declarations.js';

export const MAX_KEY_LENGTH = 200;

/** What the plugin adds to every keyed route: 409 idempotency_key_in_use, with Retry-After. */
export const IDEMPOTENCY_HEADERS: PluginHeaders = { plugin: 'idempotency', wraps: isKeyedRoute, headers: { retryAfter: [409] } };

/** A replay sends what the first answer sent: its type, and every declared header (the route declared them for that status). */
export const REPLAYED_HEADERS = ['content-type', ...Object.values(DECLARED_HEADERS).map((h) => h.name.toLowerCase())];

/** A request running under its Idempotency-Key: its transaction, and what its answer is stored under. */
export interface IdempotentUnit {
  userId: string;
  key: string;
  fingerprint: string;
  tx: OpenTransaction;
  /** The body to store when it must differ from the one sent (POST /auth/token/ never stores the plaintext). */
  storedBody?: string;
}

/**
 * Responses a retry with the same key must run again rather than replay:
 * anything answered before the route's own rules run (401, 412, 413, 415, 422,
 * 428, and the grace-period and plan gates), passing conditions (423, 429, key
 * in use, deletion queued), and 5xx.
 */
const NOT_STORED_STATUSES = new Set([401, 408, 412, 413, 415, 422, 423, 428, 429]);
const NOT_STORED_CODES = new Set(['idempotency_key_in_use', 'deletion_queued', 'book_grace_period', 'feature_gated', 'rate_limited']);

export function isStorable(status: number, code: string | null): boolean {
  if (status >= 500 || NOT_STORED_STATUSES.has(status)) return false;
  return !(code && NOT_STORED_CODES.has(code));
}

/** `Idempotency-Key: "abc"` (a structured-header string) and `abc` are the same key; blank either way is no key. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let v = (Array.isArray(raw) ? raw[0] : raw).trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1).replace(/\\(["\\])/g, '$1').trim();
  return v || undefined;
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

const reusedError = () =>
  errors.idempotencyKeyReused('This Idempotency-Key was already used with a different request (method, path or body). Use a new key.');

function keyOf(request: FastifyRequest): string {
  const key = parseIdempotencyKey(request.headers['idempotency-key']);
  if (!key) throw errors.idempotencyKeyRequired('This request needs a non-empty Idempotency-Key header (a UUIDv4 is suggested).');
  if (key.length > MAX_KEY_LENGTH) {
    throw errors.validation(`The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters.`, {
      header: 'Idempotency-Key',
      max_length: MAX_KEY_LENGTH,
    });
  }
  return key;
}

/**
 * The Idempotency-Key mechanism. `claim` (preValidation, after authentication
 * and the book's 404/403, before rate limits and schema validation) opens the
 * request's transaction under the key's lock: the request's unit of work,
 * which the handler hands to the services it calls (`unitOf(request)`), so
 * their writes and the stored answer commit together. `record`
 * (onSend) stores the answer in that same transaction and commits before a
 * byte is sent: an acknowledged effect is committed with its answer, and a
 * crash before the commit leaves neither. An error answer rolls the effect
 * back; if it is one to replay, it is stored on its own.
 */
export function createIdempotencyHooks(deps: { db: Db; store: IdempotencyStore; rateLimit: (request: FastifyRequest, reply: FastifyReply) => Promise<void> }) {
  const { db, store } = deps;

  /**
   * What comes before a claim, on every keyed route: a revoked key gets only
   * the replay of the request that revoked it; on a rate-limited route a
   * stored answer is replayed first (replays never count), then the limit is
   * counted, before any transaction opens. True when the request has been
   * answered.
   */
  async function beforeClaim(request: FastifyRequest, reply: FastifyReply, key: string, fp: string): Promise<boolean> {
    const auth = request.auth!;
    const userId = auth.user.id;
    if (auth.method === 'api_key' && auth.revoked) {
      const stored = await store.lookup(userId, key, fp);
      if (!stored) throw errors.unauthorized();
      await sendStored(reply, stored);
      return true;
    }
    if (request.routeOptions.config.rateLimit) {
      const stored = await store.find(userId, key);
      if (stored) {
        if (stored.fingerprint !== fp) throw reusedError();
        await sendStored(reply, stored.response);
        return true;
      }
      request.rateLimited = true;
      await deps.rateLimit(request, reply);
    }
    return false;
  }

  async function open(request: FastifyRequest, reply: FastifyReply): Promise<IdempotentUnit | undefined> {
    const key = keyOf(request);
    const userId = request.auth!.user.id;
    const fp = fingerprint(request);
    if (await beforeClaim(request, reply, key, fp)) return undefined;

    const result = await store.claim(userId, key, fp);
    switch (result.kind) {
      case 'claimed':
        return { userId, key, fingerprint: fp, tx: result.tx };
      case 'replay':
        await sendStored(reply, result.response);
        return undefined;
      case 'in_use':
        throw errors.idempotencyKeyInUse('A request with this Idempotency-Key is still being processed; retry shortly.', null, {
          headers: { 'retry-after': '1' },
        });
      case 'reused':
        throw reusedError();
    }
  }

  /**
   * A deferred route claims its key only when its handler asks, so no
   * transaction is held before: an upload, once the body has been read
   * (the key is bound to the bytes, `digest` stands for them; two uploads
   * racing with one key both stream, then one runs and the other replays),
   * or a deletion, once the operator's backup endpoint has answered (phases:
   * outbound work first, then the effect and its answer commit together;
   * `digest` is empty). The effect then runs in the request's transaction
   * like any other; a stored answer is replayed instead (or 422 when the
   * digest differs).
   */
  async function runDeferred<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    digest: string,
    effect: (tx: Tx) => Promise<T>,
  ): Promise<{ replayed: true } | { replayed: false; value: T }> {
    const key = keyOf(request);
    const auth = request.auth!;
    // Without a body digest the key is bound to the request as on any route (replays of a revoked key, replayIfStored).
    const fp = digest === '' ? fingerprint(request) : sha256(`${fingerprint(request)}\n${digest}`).toString('hex');
    const result = await store.claim(auth.user.id, key, fp);
    switch (result.kind) {
      case 'replay':
        await sendStored(reply, result.response);
        return { replayed: true };
      case 'in_use':
        throw errors.idempotencyKeyInUse('A request with this Idempotency-Key is still being processed; retry shortly.', null, {
          headers: { 'retry-after': '1' },
        });
      case 'reused':
        throw reusedError();
      case 'claimed': {
        const unit: IdempotentUnit = { userId: auth.user.id, key, fingerprint: fp, tx: result.tx };
        request.idempotency = unit;
        return { replayed: false, value: await db.holding(unit.tx, () => effect(unit.tx)) };
      }
    }
  }

  /**
   * Stripe's phases on a deferred route: `prepare` (outside work, no
   * transaction held), then the key is claimed and `effect` commits with the
   * stored answer. A retry whose answer is stored is replayed without
   * preparing again; a refusal of `prepare` is answered under the key, as the
   * effect's own errors are.
   */
  async function runPhased<P, T>(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    prepare: () => Promise<P>,
    effect: (tx: Tx, prepared: P) => Promise<T>,
  ): Promise<{ replayed: true } | { replayed: false; value: T }> {
    if (await store.find(request.auth!.user.id, key)) {
      return runDeferred(request, reply, '', async () => {
        // The stored answer expired between the look and the claim: nothing was prepared, so ask again.
        throw errors.idempotencyKeyInUse('Send this request again.', null, { headers: { 'retry-after': '1' }, transient: true });
      });
    }
    const prepared = await prepare().then(
      (value) => ({ value }),
      (refused: unknown) => ({ refused }),
    );
    return runDeferred(request, reply, '', async (tx) => {
      if ('refused' in prepared) throw prepared.refused;
      return effect(tx, prepared.value);
    });
  }

  // A callback hook: the rest of the request (hooks, handler, onSend) runs as the holder of the unit's transaction.
  function claim(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    request.idempotency = null;
    const rc = request.routeOptions.config;
    if (!isUnsafeMethod(request.method) || rc.idempotency === false || !request.auth) return done();
    if (rc.idempotency === 'deferred') {
      let key: string;
      try {
        key = keyOf(request); // 428 and 400 come now, before the body is read
      } catch (err) {
        return done(err as Error);
      }
      request.runIdempotent = (digest, effect) => runDeferred(request, reply, digest, effect);
      request.hasStoredAnswer = async () => Boolean(await store.find(request.auth!.user.id, key));
      request.runPhased = (prepare, effect) => runPhased(request, reply, key, prepare, effect);
      const answered = beforeClaim(request, reply, key, fingerprint(request));
      answered.then((sent) => (sent ? undefined : done()), done);
      return;
    }
    open(request, reply).then(
      (unit) => {
        if (!unit) return; // answered from the store
        request.idempotency = unit;
        db.holding(unit.tx, () => done());
      },
      (err) => done(err),
    );
  }

  // onSend, a callback hook: a request without a unit (every read) passes straight through.
  function record(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) {
    const unit = request.idempotency;
    if (!unit) return done(null, payload);
    recordUnit(request, reply, unit, payload).then(
      () => done(null, payload),
      (err: Error) => done(err),
    );
  }

  async function recordUnit(request: FastifyRequest, reply: FastifyReply, unit: IdempotentUnit, payload: unknown) {
    try {
      await finish(request, reply, unit, payload);
    } catch (err) {
      // The answer could not be made durable: end the transaction, and let the error answer instead.
      await unit.tx.rollback().catch(() => {});
      throw err;
    } finally {
      request.idempotency = null;
    }
  }

  async function finish(request: FastifyRequest, reply: FastifyReply, unit: IdempotentUnit, payload: unknown) {
    const status = reply.statusCode;
    const storable = isStorable(status, request.errorCode) && !request.errorTransient;
    const headers: Record<string, string> = {};
    for (const h of REPLAYED_HEADERS) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    const answer = {
      status,
      headers,
      body: unit.storedBody ?? (typeof payload === 'string' ? payload : payload === undefined || payload === null ? '' : String(payload)),
    };
    if (status < 400) {
      // The effect and its answer commit together (one round trip), before the answer leaves.
      await unit.tx.commit(storable ? store.answerScript(unit.userId, unit.key, unit.fingerprint, answer) : undefined);
      return;
    }
    if (!storable) {
      await unit.tx.rollback();
      return;
    }
    // An error answer to replay: undo the effect, keep the key's lock, and store the answer in the
    // same transaction, so no retry can slip in between and run the request again.
    try {
      await unit.tx.rollbackToSavepoint('effect');
    } catch {
      await unit.tx.rollback(); // the transaction itself failed: nothing of the effect is left to undo
      await store.saveAnswer(db, unit.userId, unit.key, unit.fingerprint, answer);
      return;
    }
    await unit.tx.commit(store.answerScript(unit.userId, unit.key, unit.fingerprint, answer));
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

  /** onResponse: a request that ended without reaching onSend (client gone mid-way) must not leave its transaction open. */
  function abandon(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    const unit = request.idempotency;
    if (!unit) return done();
    request.idempotency = null;
    unit.tx.rollback().then(
      () => done(),
      () => done(),
    );
  }

  return { claim, record, replayIfStored, abandon };
}
