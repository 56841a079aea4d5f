import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { AppError, errors } from '../errors.js';
import { assertCsrf, CSRF_FIELD } from '../http/csrf.js';
import { randomToken, safeEqual } from '../lib/secrets.js';
import { CSRF_COOKIE, SESSION_COOKIE, SESSION_TTL_SECONDS } from '../services/sessions/session-service.js';

export { CSRF_FIELD };
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

/**
 * The contributor pages add two sources, both our own: the book title's
 * typeface (/static/fonts/) and the preview of a chosen photo, which the
 * browser shows from a blob: URL of the local file (nothing is fetched).
 */
export const BOOK_PAGE_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("img-src 'self'", "img-src 'self' blob:") + "; font-src 'self'";

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
 * Checks a form POST with the same rule as the API (../http/csrf.ts); a form
 * may carry the token in its hidden field, first-party script in X-CSRFToken.
 */
export function assertFormCsrf(request: FastifyRequest, config: Config): void {
  assertCsrf(request, config, { formToken: formField(request, CSRF_FIELD) });
}

/**
 * For a multipart form, whose hidden token field arrives inside the body:
 * what can be checked before a byte of it is read. The csrftoken cookie must
 * be there and the source must be this site; an X-CSRFToken header, when
 * sent, must match the cookie (then the form field is not needed). Returns
 * whether the form field must still be checked (assertFormCsrfToken), which
 * the caller requires before it takes any other part of the body.
 */
export function assertCsrfBeforeBody(request: FastifyRequest, config: Config): { needsFormToken: boolean } {
  const cookie = request.cookies[CSRF_COOKIE];
  const header = request.headers['x-csrftoken'];
  const hasHeader = typeof header === 'string' && header !== '';
  // With no header, the shared check compares the cookie with itself: what remains is the source check.
  assertCsrf(request, config, { formToken: hasHeader ? undefined : cookie });
  return { needsFormToken: !hasHeader };
}

/** The hidden field's token, read from a multipart body, against the csrftoken cookie. */
export function assertFormCsrfToken(request: FastifyRequest, token: string): void {
  const cookie = request.cookies[CSRF_COOKIE];
  if (!cookie || !safeEqual(cookie, token)) {
    throw errors.csrfFailed('the security token (form field) is missing or does not match the csrftoken cookie');
  }
}

/** One text field of an urlencoded form body; repeated or non-text values count as absent. */
export function formField(request: FastifyRequest, name: string): string | undefined {
  const body = request.body;
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

// Any origin we own nothing on: paths are resolved against it to see whether they stay on "this" site.
const PATH_BASE = 'http://same-origin.invalid';

/**
 * Where to go after signing in. Only a path on this site is returned, in the
 * normalised form a browser would resolve, so that it is still this site when
 * sent back in a Location header: "/.//evil.com" and "/%2e%2e//evil.com"
 * normalise to "//evil.com", which a browser reads as another host.
 */
export function safeNextPath(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2000) return fallback;
  // Backslashes count as slashes to browsers; control characters are stripped by some.
  if (!value.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  const resolved = sameOriginPath(value);
  // Resolved again as a Location header would be: the result must be the same same-origin path.
  return resolved !== undefined && sameOriginPath(resolved) === resolved ? resolved : fallback;
}

/** The path and query `value` resolves to, or undefined when it leaves the site or is protocol-relative. */
function sameOriginPath(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value, PATH_BASE);
  } catch {
    return undefined;
  }
  const path = url.pathname + url.search;
  return url.origin === PATH_BASE && !/^\/[/\\]/.test(path) ? path : undefined;
}

export function rateLimitedError(retryAfterSeconds: number): AppError {
  return errors.rateLimited(retryAfterSeconds, { retry_after: retryAfterSeconds }, {
    message: 'Too many attempts. Wait a little, then try again.',
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
