import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteContext } from '../services/index.js';
import { SESSION_COOKIE, type SessionIdentity } from '../services/sessions/session-service.js';
import { rotateCsrfToken, setSessionCookie } from './web-security.js';

/** The browser session behind this request's cookie, if it is live. */
export async function currentSession(request: FastifyRequest, ctx: RouteContext): Promise<SessionIdentity | undefined> {
  const cookie = request.cookies[SESSION_COOKIE];
  return cookie ? ctx.services.sessions.findSession(cookie) : undefined;
}

/**
 * Signs the browser in as `userId`. Any session the browser already had is
 * ended and a new id issued (no session fixation), and the CSRF token is
 * replaced too, so nothing planted before sign-in survives it.
 */
export async function beginSession(request: FastifyRequest, reply: FastifyReply, ctx: RouteContext, userId: string): Promise<void> {
  const previous = request.cookies[SESSION_COOKIE];
  if (previous) await ctx.services.sessions.endSession(previous);
  const { cookieValue } = await ctx.services.sessions.startSession(userId);
  setSessionCookie(reply, ctx.config, cookieValue);
  rotateCsrfToken(reply, ctx.config);
}
