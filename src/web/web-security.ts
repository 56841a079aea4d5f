import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { AppError, errors } from '../errors.js';
import { requestOrigin } from '../http/plugins/authenticate.js';
import { randomToken, safeEqual } from '../lib/secrets.js';
import { CSRF_COOKIE, SESSION_COOKIE, SESSION_TTL_SECONDS } from '../services/sessions/session-service.js';

/** The hidden form field that carries the CSRF token (the name Django uses, so clients that know one know the other). */
export const CSRF_FIELD = 'csrfmiddlewaretoken';
const CSRF_TOKEN_RE = /^[A-Za-z0-9_-]{32,64}$/;
const CSRF_TTL_SECONDS = 365 * 24 * 3600;

/**
 * Pages load their script and stylesheet from us and nothing else; no inline
 * code runs, so an injected tag could not execute even if escaping failed.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function setPageSecurityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  // same-origin: our own fetch to /api/v1/auth/token/ carries the Referer the API checks; other sites get none.
  reply.header('referrer-policy', 'same-origin');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

/**
 * Returns the CSRF token for this browser, setting the cookie when it is
 * missing or malformed. It is readable by page script (not HttpOnly): the
 * tokens page copies it into the X-CSRFToken header, which a foreign site
 * cannot do because it cannot read our cookies.
 */
export function ensureCsrfToken(request: FastifyRequest, reply: FastifyReply, config: Config): string {
  const current = request.cookies[CSRF_COOKIE];
  if (current && CSRF_TOKEN_RE.test(current)) return current;
  return rotateCsrfToken(reply, config);
}

/** A fresh CSRF token; done at sign-in so a token planted before it is worthless afterwards. */
export function rotateCsrfToken(reply: FastifyReply, config: Config): string {
  const token = randomToken(32);
  reply.setCookie(CSRF_COOKIE, token, {
    path: '/',
    sameSite: 'lax',
    secure: config.http.secureCookies,
    httpOnly: false,
    maxAge: CSRF_TTL_SECONDS,
  });
  return token;
}

export function setSessionCookie(reply: FastifyReply, config: Config, value: string): void {
  reply.setCookie(SESSION_COOKIE, value, {
    path: '/',
    sameSite: 'lax',
    secure: config.http.secureCookies,
    httpOnly: true,
    maxAge: SESSION_TTL_SECONDS,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', sameSite: 'lax', secure: config.http.secureCookies, httpOnly: true });
}

/**
 * Checks a form POST: the hidden field must equal the csrftoken cookie
 * (double submit), and the request must come from one of our own pages.
 * Browsers send Origin on form POSTs; older ones only a Referer, so one of the
 * two must be present and name this site.
 */
export function assertFormCsrf(request: FastifyRequest, config: Config): void {
  const cookie = request.cookies[CSRF_COOKIE];
  const field = formField(request, CSRF_FIELD);
  if (!cookie || !field || !safeEqual(cookie, field)) {
    throw errors.csrfFailed('the form’s security token is missing or does not match this browser’s cookie');
  }
  const origin = request.headers.origin;
  const source = typeof origin === 'string' ? origin : request.headers.referer;
  if (!source) throw errors.csrfFailed('the request carried neither an Origin nor a Referer header');
  if (!isOwnOrigin(request, config, source)) throw errors.csrfFailed('the form was not sent from this site');
}

function isOwnOrigin(request: FastifyRequest, config: Config, url: string): boolean {
  const origin = originOf(url);
  // "null" (sandboxed frames, opaque origins) does not parse, so it never matches.
  return origin !== undefined && (origin === config.http.publicOrigin || origin === originOf(requestOrigin(request)));
}

/** The normalised origin of a URL ("http://x:80" and "http://x" are the same site). */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** One text field of an urlencoded form body; repeated or non-text values count as absent. */
export function formField(request: FastifyRequest, name: string): string | undefined {
  const body = request.body;
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Where to go after signing in. Only a path on this site is accepted, so the
 * login page cannot be used to bounce a user to another site.
 */
export function safeNextPath(value: unknown, fallback = '/settings/tokens/'): string {
  if (typeof value !== 'string' || value.length > 2000) return fallback;
  // "//host" and "/\host" are protocol-relative to browsers; control characters are stripped by some.
  if (!/^\/(?![/\\])/.test(value) || /[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  try {
    const resolved = new URL(value, 'http://same.invalid');
    return resolved.origin === 'http://same.invalid' ? resolved.pathname + resolved.search : fallback;
  } catch {
    return fallback;
  }
}

export function rateLimitedError(retryAfterSeconds: number): AppError {
  return new AppError('rate_limited', 'Too many attempts. Wait a little, then try again.', { retry_after: retryAfterSeconds }, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
