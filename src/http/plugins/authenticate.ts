import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import { errors } from '../../errors.js';
import { SESSION_COOKIE, type SessionService } from '../../services/sessions/session-service.js';
import type { TokenService } from '../../services/tokens/token-service.js';
import { assertCsrf } from '../csrf.js';
import { openRequestScope } from '../../lib/request-scope.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method);
}

/**
 * onRequest hook for /api/v1: resolves the caller from a bearer key or a
 * browser session (with the CSRF check of ../csrf.ts on unsafe methods) and
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
      openRequestScope(found.user);
      if (rc.sessionOnly) {
        throw errors.sessionRequired('This route needs a signed-in browser session; an API key cannot call it.');
      }
      return;
    }

    const cookie = request.cookies?.[SESSION_COOKIE];
    const session = cookie ? await sessions.findSession(cookie) : undefined;
    if (session) {
      if (isUnsafeMethod(request.method)) assertCsrf(request, config, { requireReferer: true });
      request.auth = { method: 'session', user: session.user, sessionId: session.sessionId };
      openRequestScope(session.user);
      if (rc.tokenOnly) throw errors.tokenRequired('This route needs the API key itself as the bearer credential.');
      return;
    }
    if (mode === 'required') throw errors.unauthorized();
  };
}
