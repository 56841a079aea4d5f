import { sha256 } from '../../lib/secrets.js';
import type { RouteContext } from '../../services/index.js';
import { normaliseEmail } from '../../services/users/user-service.js';
import { rateLimitedError } from '../web-security.js';

/** Longer passwords are refused before hashing; argon2 should only ever see human-sized input. */
export const MAX_PASSWORD_LENGTH = 1024;

type Limits = Pick<RouteContext, 'config' | 'services'>;

/**
 * Counts one sign-in attempt against the caller's address and against the
 * account, and throws 429 when either is spent. It runs before the password
 * is checked, so a blocked guess costs no hashing and learns nothing. The
 * per-account bucket also means one account can be locked for the window by
 * anyone who knows the address: the price of stopping distributed guessing.
 */
export async function limitSignIn(ctx: Limits, email: string, ip: string): Promise<void> {
  const { signInAttempts, signInWindowSeconds } = ctx.config.limits;
  const byIp = await ctx.services.rateLimiter.hit(`web_sign_in:ip:${ip}`, signInAttempts, signInWindowSeconds);
  if (!byIp.allowed) throw rateLimitedError(byIp.retryAfterSeconds);
  // Hashed so the limiter table never holds addresses, and its keys stay short.
  const account = sha256(normaliseEmail(email)).toString('hex');
  const byEmail = await ctx.services.rateLimiter.hit(`web_sign_in:email:${account}`, signInAttempts, signInWindowSeconds);
  if (!byEmail.allowed) throw rateLimitedError(byEmail.retryAfterSeconds);
}

/** Sign-ups hash a password with argon2id (19 MiB each), so they share the sign-in budget per address. */
export async function limitSignUp(ctx: Limits, ip: string): Promise<void> {
  const { signInAttempts, signInWindowSeconds } = ctx.config.limits;
  const r = await ctx.services.rateLimiter.hit(`web_sign_up:ip:${ip}`, signInAttempts, signInWindowSeconds);
  if (!r.allowed) throw rateLimitedError(r.retryAfterSeconds);
}

