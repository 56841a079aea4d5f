import { randomUUID } from 'node:crypto';
import { createSessionService, CSRF_COOKIE, SESSION_COOKIE } from '../../src/services/sessions/session-service.js';
import { createTokenService } from '../../src/services/tokens/token-service.js';
import { createUserService } from '../../src/services/users/user-service.js';
import type { UserRow } from '../../src/services/users/user-types.js';
import { randomToken } from '../../src/lib/secrets.js';
import type { SessionCredentials, TestApp } from './build-test-app.js';

export const DEFAULT_PASSWORD = 'correct horse battery staple';

export interface TestUser {
  user: UserRow;
  email: string;
  password: string;
  /** A live API key for this user. */
  token: string;
}

/** A new user with one API key; every test makes its own. */
export async function newUser(t: TestApp, o: { email?: string; firstName?: string; lastName?: string; staff?: boolean } = {}): Promise<TestUser> {
  const email = o.email ?? `user-${randomUUID().slice(0, 8)}@example.test`;
  const user = await createUserService({ db: t.db }).createUser({
    email,
    password: DEFAULT_PASSWORD,
    firstName: o.firstName ?? 'Test',
    lastName: o.lastName ?? 'User',
    isStaff: o.staff ?? false,
  });
  const { plaintext } = await createTokenService({ db: t.db }).issueToken(user.id, `key-${randomUUID().slice(0, 8)}`);
  return { user, email: user.email, password: DEFAULT_PASSWORD, token: plaintext };
}

export async function newToken(t: TestApp, u: TestUser, name = `key-${randomUUID().slice(0, 8)}`): Promise<string> {
  return (await createTokenService({ db: t.db }).issueToken(u.user.id, name)).plaintext;
}

/** A signed-in browser session for the user, with a matching CSRF cookie. */
export async function newSession(t: TestApp, u: TestUser): Promise<SessionCredentials> {
  const { cookieValue } = await createSessionService({ db: t.db }).startSession(u.user.id);
  const csrf = randomToken(24);
  return { cookie: `${SESSION_COOKIE}=${cookieValue}; ${CSRF_COOKIE}=${csrf}`, csrf, origin: t.config.http.publicOrigin };
}
