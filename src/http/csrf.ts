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
 * - source: the Origin header (when sent and not "null") or else the Referer
 *   has exactly PUBLIC_URL's origin. The request's own Host is never taken
 *   as ours: the sender chooses it.
 */
export function assertCsrf(request: FastifyRequest, config: Config, formToken?: string): void {
  const cookie = request.cookies?.[CSRF_COOKIE];
  const header = request.headers[CSRF_HEADER];
  const token = typeof header === 'string' && header !== '' ? header : formToken;
  if (!cookie || !token || !safeEqual(cookie, token)) {
    throw errors.csrfFailed('the security token (X-CSRFToken header or form field) is missing or does not match the csrftoken cookie');
  }
  const origin = request.headers.origin;
  // Sandboxed frames and some redirects send "Origin: null"; the Referer may still say where the request came from.
  const source = typeof origin === 'string' && origin !== '' && origin !== 'null' ? origin : request.headers.referer;
  if (!source) throw errors.csrfFailed('the request carried neither an Origin nor a Referer header');
  if (originOf(source) !== config.http.publicOrigin) throw errors.csrfFailed('the request was not sent from this site');
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
