import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { errors } from '../errors.js';
import { safeEqual } from '../lib/secrets.js';
import { CSRF_COOKIE, CSRF_HEADER } from '../services/sessions/session-service.js';

/** The hidden form field that carries the CSRF token (the name Django uses, so clients that know one know the other). */
export const CSRF_FIELD = 'csrfmiddlewaretoken';

/**
 * The one CSRF check for every unsafe request a browser makes with our
 * cookies, API calls and web form posts alike:
 *
 * - double submit: the token in the X-CSRFToken header, or else `formToken`
 *   (a web form's hidden field; API callers pass none), equals the csrftoken
 *   cookie, which a foreign page can neither read nor set;
 * - source: every one of Origin (unless "null") and Referer that is sent has
 *   exactly PUBLIC_URL's origin, and at least one is sent. The API's session
 *   calls must send the Referer (the contract's rule for POST /auth/token/).
 *   The request's own Host is never taken as ours: the sender chooses it.
 */
export function assertCsrf(request: FastifyRequest, config: Config, o: { formToken?: string; requireReferer?: boolean } = {}): void {
  const formToken = o.formToken;
  const cookie = request.cookies?.[CSRF_COOKIE];
  const header = request.headers[CSRF_HEADER];
  const token = typeof header === 'string' && header !== '' ? header : formToken;
  if (!cookie || !token || !safeEqual(cookie, token)) {
    throw errors.csrfFailed('the security token (X-CSRFToken header or form field) is missing or does not match the csrftoken cookie');
  }
  // Sandboxed frames and some redirects send "Origin: null"; the Referer may still say where the request came from.
  const origin = typeof request.headers.origin === 'string' && request.headers.origin !== '' && request.headers.origin !== 'null' ? request.headers.origin : undefined;
  const referer = typeof request.headers.referer === 'string' && request.headers.referer !== '' ? request.headers.referer : undefined;
  if (o.requireReferer && !referer) throw errors.csrfFailed('Referer header missing');
  if (!origin && !referer) throw errors.csrfFailed('the request carried neither an Origin nor a Referer header');
  for (const source of [origin, referer]) {
    if (source !== undefined && originOf(source) !== config.http.publicOrigin) throw errors.csrfFailed('the request was not sent from this site');
  }
}

/** The normalised origin of a URL ("http://x:80" and "http://x" are the same site); undefined when it has none. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
