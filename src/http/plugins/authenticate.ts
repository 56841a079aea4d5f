import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import { AppError, errors } from '../../errors.js';
import { safeEqual } from '../../lib/secrets.js';
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, type SessionService } from '../../services/sessions/session-service.js';
import type { TokenService } from '../../services/tokens/token-service.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method);
}

/**
 * onRequest hook for /api/v1: resolves the caller from a bearer key or a
 * browser session (with CSRF and Referer checks on unsafe methods) and
 * applies the route's auth mode.
 */
export function createAuthenticate(deps: { config: Config; tokens: TokenService; sessions: SessionService }) {
  const { config, tokens, sessions } = deps;

  return async function authenticate(request: FastifyRequest, _reply: FastifyReply) {
    request.auth = null;
    const rc = request.routeOptions.config;
    const mode = rc.auth ?? 'required';
    if (mode === 'none') return;

    const header = request.headers.authorization;
    if (header !== undefined) {
      const m = /^Bearer +(\S+) *$/i.exec(header);
      const found = m ? await tokens.authenticate(m[1]) : undefined;
      if (!found || (found.revoked && !rc.replayWithRevokedToken)) throw errors.unauthorized();
      request.auth = { method: 'api_key', user: found.user, token: found.token, revoked: found.revoked };
      if (rc.sessionOnly) {
        throw new AppError('session_required', 'This route needs a signed-in browser session; an API key cannot call it.');
      }
      return;
    }

    const cookie = request.cookies?.[SESSION_COOKIE];
    const session = cookie ? await sessions.findSession(cookie) : undefined;
    if (session) {
      if (isUnsafeMethod(request.method)) assertCsrf(request, config);
      request.auth = { method: 'session', user: session.user, sessionId: session.sessionId };
      if (rc.tokenOnly) throw new AppError('token_required', 'This route needs the API key itself as the bearer credential.');
      return;
    }
    if (mode === 'required') throw errors.unauthorized();
  };
}

/**
 * Browser sessions on unsafe methods: the X-CSRFToken header must equal the
 * csrftoken cookie (double submit), and the Referer must be this site, so a
 * page elsewhere cannot ride the cookie.
 */
export function assertCsrf(request: FastifyRequest, config: Config): void {
  const cookie = request.cookies?.[CSRF_COOKIE];
  const header = request.headers[CSRF_HEADER];
  if (!cookie || typeof header !== 'string' || !header || !safeEqual(cookie, header)) {
    throw errors.csrfFailed('X-CSRFToken header missing or not matching the csrftoken cookie');
  }
  const referer = request.headers.referer;
  if (!referer) throw errors.csrfFailed('Referer header missing');
  if (!isSameOrigin(request, referer, config)) throw errors.csrfFailed('Referer is not this site');
}

/** This request's own origin, normalised like a Referer's (`http://h:80` is `http://h`). */
export function requestOrigin(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return '';
  }
}

function isSameOrigin(request: FastifyRequest, referer: string, config: Config): boolean {
  let origin: string;
  try {
    origin = new URL(referer).origin;
  } catch {
    return false;
  }
  return origin === config.http.publicOrigin || origin === requestOrigin(request);
}
