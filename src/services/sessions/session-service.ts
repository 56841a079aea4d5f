import type { Config } from '../../config/config.js';
import type { Db } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';
import { hmac, randomToken, safeEqual, sha256 } from '../../lib/secrets.js';
import type { UserRow } from '../users/user-types.js';
import { endSessionByHash, findLiveSession, insertSession } from './session-repository.js';

export const SESSION_COOKIE = 'mb_session';
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'x-csrftoken';
export const SESSION_TTL_SECONDS = 14 * 24 * 3600;
/** The device cookie (OWASP's "device cookie" against lockout): which browser signed in as whom before. */
export const DEVICE_COOKIE = 'mb_device';
export const DEVICE_TTL_SECONDS = 365 * 24 * 3600;
const DEVICE_RE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export interface SessionIdentity {
  sessionId: string;
  user: UserRow;
}

export function createSessionService(deps: { db: Db; config: Pick<Config, 'secretKey'> }) {
  const { db, config } = deps;
  // Bound to the address it signed in as, so one browser's cookie vouches for nothing else; only the server can make one.
  const deviceSignature = (email: string, nonce: string) => hmac(config.secretKey, `device-cookie:${email.trim().toLowerCase()}:${nonce}`).toString('base64url');
  return {
    /** A new device cookie value for a browser that just signed in as `email`. */
    issueDeviceCookie(email: string): string {
      const nonce = randomToken(16);
      return `${nonce}.${deviceSignature(email, nonce)}`;
    },

    /**
     * The device id (the cookie's nonce) when `cookieValue` is a device cookie
     * this server issued for `email`; otherwise undefined (the client is untrusted).
     */
    trustedDevice(cookieValue: string | undefined, email: string): string | undefined {
      const m = cookieValue ? DEVICE_RE.exec(cookieValue) : null;
      if (!m) return undefined;
      return safeEqual(m[2], deviceSignature(email, m[1])) ? m[1] : undefined;
    },

    /** Starts a browser session; the cookie value is returned once, only its hash is stored. */
    async startSession(userId: string): Promise<{ cookieValue: string; sessionId: string }> {
      const cookieValue = randomToken(32);
      const sessionId = uuidv7();
      await insertSession(db, { id: sessionId, userId, tokenHash: sha256(cookieValue), ttlSeconds: SESSION_TTL_SECONDS });
      return { cookieValue, sessionId };
    },

    async findSession(cookieValue: string): Promise<SessionIdentity | undefined> {
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(cookieValue)) return undefined;
      const row = await findLiveSession(db, sha256(cookieValue));
      if (!row) return undefined;
      const { s_id, ...user } = row;
      return { sessionId: s_id as string, user: { ...user, password_hash: null } as unknown as UserRow };
    },

    async endSession(cookieValue: string): Promise<void> {
      await endSessionByHash(db, sha256(cookieValue));
    },
  };
}
export type SessionService = ReturnType<typeof createSessionService>;
