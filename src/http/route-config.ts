import type { BookAction } from '../services/books/book-access.js';
import type { BearerIdentity } from '../services/tokens/token-service.js';
import type { UserRow } from '../services/users/user-types.js';

export type AuthMode = 'required' | 'optional' | 'none';

export interface Deprecation {
  /** When the route became deprecated (RFC 9745 `Deprecation: @<unix seconds>`). */
  since: Date;
  /** When it stops answering (RFC 8594 `Sunset`, an HTTP-date); at least 90 days after `since`. */
  sunset: Date;
  /** Where to read about the replacement (`Link: <…>; rel="deprecation"`). */
  link?: string;
}

export interface RouteRateLimit {
  /** Bucket name; the key below is appended. */
  name: string;
  /** The caller's key within the bucket, e.g. user id and IP. */
  key: (request: import('fastify').FastifyRequest) => string;
  limit: (config: import('../config/config.js').Config) => number;
  windowSeconds: (config: import('../config/config.js').Config) => number;
  /**
   * A limit the route's service counts from its own rows (one data export per
   * day: only exports that exist count), instead of the shared hit counter.
   * Runs in the same place: after a replay is answered, before the request's
   * transaction and schema validation. It only reads: the service checks
   * again, under a lock, where it writes.
   */
  check?: (request: import('fastify').FastifyRequest) => Promise<import('../services/rate-limit/rate-limiter.js').RateLimitResult>;
}

export type Auth =
  | { method: 'api_key'; user: UserRow; token: BearerIdentity['token']; revoked: boolean }
  | { method: 'session'; user: UserRow; sessionId: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call: a signed-in caller (default), anyone, or either. */
    auth?: AuthMode;
    /** Only a browser session may call (POST /auth/token/): a bearer gets 403 session_required. */
    sessionOnly?: boolean;
    /** Only an API key may call (DELETE /auth/token/): a session gets 401 token_required. */
    tokenOnly?: boolean;
    /** Lets a revoked key through to the idempotency replay (and nothing else). */
    replayWithRevokedToken?: boolean;
    /**
     * Idempotency-Key handling; defaults to required on every non-GET signed-in route.
     * 'deferred': required, but claimed by the handler once the body is read (uploads; see runIdempotent) or the outside work is done (deletions; see runPhased).
     */
    idempotency?: boolean | 'deferred';
    /** The body is multipart/form-data read by the handler as a stream (uploads); documented as such. */
    multipart?: { fileField: string; description: string };
    /** Binds the key to the calling token as well (for routes whose effect is on the token). */
    idempotencyPerToken?: boolean;
    /**
     * What this route can answer besides what its config implies (see ErrorScope
     * in src/errors.ts), for the OpenAPI document: error codes its service
     * raises (`invalid_state`), or a bare status when its one code is implied.
     */
    errors?: (number | import('../errors.js').ErrorCode)[];
    deprecated?: Deprecation;
    /** A database-backed rate limit, checked after idempotency (replays never count) and before schema validation. */
    rateLimit?: RouteRateLimit;
    /**
     * A /books/{slug}/… route and the action it takes: visibility (404) and
     * role (403) are answered right after authentication, ahead of
     * idempotency and schema validation, as the contract orders them. The
     * service checks the same action again, with the precondition and the
     * grace-period and plan gates, inside its transaction.
     */
    book?: BookAction | 'visible';
    /**
     * For a contributor, the `{id}` in the path must name a submission they
     * wrote: another member's is 403 insufficient_role, answered with the role.
     */
    ownRow?: 'submission';
    /** Routes outside the public API (web pages, health) carry no API conventions. */
    internal?: boolean;
    /**
     * Its 200 carries Last-Modified, a list's sync watermark (listResponse
     * sends it, and refuses to on a route that does not declare it): the
     * OpenAPI document lists the header from this, not from the schema.
     */
    lastModified?: boolean;
    /**
     * The statuses whose answer carries the resource's ETag (setEtag), where
     * Location points (setLocation), and which say when to retry
     * (setRetryAfter). The document lists these headers from these
     * declarations and those of the plugins that wrap the route (see
     * src/http/response-headers.ts); an undeclared one is refused.
     */
    etag?: readonly number[];
    location?: readonly number[];
    retryAfter?: readonly number[];
  }
  interface FastifyRequest {
    auth: Auth | null;
    idempotency: import('./plugins/idempotency.js').IdempotentUnit | null;
    errorCode: string | null;
    /** The error answered may pass on its own: not stored for replay (AppError.transient). */
    errorTransient: boolean;
    /** The route's rate limit has been counted for this request. */
    rateLimited: boolean;
    /**
     * On an `idempotency: 'deferred'` route: claims the key for this body
     * (`digest` stands for it) and runs the effect in the request's
     * transaction, or answers the stored reply (replayed: true).
     */
    runIdempotent?: <T>(digest: string, effect: (tx: import('../db/client.js').Tx) => Promise<T>) => Promise<{ replayed: true } | { replayed: false; value: T }>;
    /**
     * On an `idempotency: 'deferred'` route whose effect follows outside work
     * (a deletion's backup erasure): `prepare` runs with no transaction held,
     * then the key is claimed and `effect` commits with the stored answer; a
     * stored answer is replayed without preparing again.
     */
    runPhased?: <P, T>(
      prepare: () => Promise<P>,
      effect: (tx: import('../db/client.js').Tx, prepared: P) => Promise<T>,
    ) => Promise<{ replayed: true } | { replayed: false; value: T }>;
    /** On an `idempotency: 'deferred'` route: whether an answer is already stored under this request's key (a retry), looked up before the body is read. */
    hasStoredAnswer?: () => Promise<boolean>;
    /** An upload streamed into the store and not (yet) taken by its row; removed after the response if still here. */
    stagedUpload?: import('../services/media/media-service.js').StagedUpload;
  }
}

export function requireAuth(auth: Auth | null): Auth {
  if (!auth) throw new Error('route reached without authentication');
  return auth;
}

/**
 * The request's unit of work: the transaction its Idempotency-Key claimed,
 * in which the route's services write and its answer is stored (for writes
 * on a route with `idempotency` on, answered after the claim).
 */
export function unitOf(request: import('fastify').FastifyRequest): import('../db/client.js').Tx {
  const unit = request.idempotency;
  if (!unit) throw new Error('unitOf: the request holds no unit of work (a read, or a route without idempotency)');
  return unit.tx;
}

/** The signed-in user a route acts for (routes behind auth 'required' only). */
export function actorOf(request: import('fastify').FastifyRequest): UserRow {
  return requireAuth(request.auth).user;
}
