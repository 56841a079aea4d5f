import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../../lib/secrets.js';
import type { RouteContext } from '../../services/index.js';
import { DEVICE_COOKIE, DEVICE_TTL_SECONDS } from '../../services/sessions/session-service.js';
import { normaliseEmail } from '../../services/users/user-service.js';
import { rateLimitedError } from '../web-security.js';

/** Longer passwords are refused before hashing; argon2 should only ever see human-sized input. */
export const MAX_PASSWORD_LENGTH = 1024;

type Limits = Pick<RouteContext, 'config' | 'services'>;

/**
 * Counts one sign-in attempt and throws 429 when the client's budget is
 * spent. It runs before the password is checked, so a blocked guess costs no
 * hashing and learns nothing.
 *
 * The budget belongs to the client, never to the account (OWASP's device
 * cookies): a browser that signed in as this address before carries a device
 * cookie, and its attempts count against that cookie alone; any other client
 * is untrusted and counts against its address, overall and for this account.
 * So guesses from elsewhere slow or stop only the guessers, and the right
 * person (with their device cookie, or from a client that has not failed)
 * still signs in.
 */
export async function limitSignIn(ctx: Limits, request: FastifyRequest, email: string): Promise<void> {
  const { signInAttempts, signInWindowSeconds } = ctx.config.limits;
  const hit = async (bucket: string) => {
    const r = await ctx.services.rateLimiter.hit(bucket, signInAttempts, signInWindowSeconds);
    if (!r.allowed) throw rateLimitedError(r.retryAfterSeconds);
  };
  const device = ctx.services.sessions.trustedDevice(request.cookies[DEVICE_COOKIE], email);
  if (device) return hit(`web_sign_in:device:${device}`);
  // Hashed so the limiter table never holds addresses, and its keys stay short.
  const account = sha256(normaliseEmail(email)).toString('hex').slice(0, 32);
  await hit(`web_sign_in:ip:${request.ip}`);
  await hit(`web_sign_in:ip_account:${request.ip}:${account}`);
}

/** After a successful sign-in: this browser becomes a trusted device for the address. */
export function setDeviceCookie(reply: FastifyReply, ctx: Limits, email: string): void {
  reply.setCookie(DEVICE_COOKIE, ctx.services.sessions.issueDeviceCookie(email), {
    path: '/accounts/',
    sameSite: 'lax',
    secure: ctx.config.http.secureCookies,
    httpOnly: true,
    maxAge: DEVICE_TTL_SECONDS,
  });
}

/** Sign-ups hash a password with argon2id (19 MiB each), so they share the sign-in budget per address. */
export async function limitSignUp(ctx: Limits, ip: string): Promise<void> {
  const { signInAttempts, signInWindowSeconds } = ctx.config.limits;
  const r = await ctx.services.rateLimiter.hit(`web_sign_up:ip:${ip}`, signInAttempts, signInWindowSeconds);
  if (!r.allowed) throw rateLimitedError(r.retryAfterSeconds);
}

/** At most this many sign-up mails (confirmations or "someone tried") to one address per day, so the page cannot flood a mailbox. */
const SIGN_UP_MAILS_PER_DAY = 5;

export async function signUpMailAllowed(ctx: Limits, email: string): Promise<boolean> {
  const r = await ctx.services.rateLimiter.hit(`web_sign_up:mail:${sha256(normaliseEmail(email)).toString('hex').slice(0, 32)}`, SIGN_UP_MAILS_PER_DAY, 24 * 3600);
  return r.allowed;
}
