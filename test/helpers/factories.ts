import { randomUUID } from 'node:crypto';
import { createSessionService, CSRF_COOKIE, SESSION_COOKIE } from '../../src/services/sessions/session-service.js';
import { createTokenService } from '../../src/services/tokens/token-service.js';
import { createUserAccount } from '../../src/services/users/user-service.js';
import type { UserRow } from '../../src/services/users/user-types.js';
import { randomToken } from '../../src/lib/secrets.js';
import type { SessionCredentials, TestApp } from './build-test-app.js';
import { findBookContext } from '../../src/services/books/book-repository.js';
import { createQuotaService } from '../../src/services/books/quota-service.js';
import { insertSubmission } from '../../src/services/submissions/submission-repository.js';
import { uuidv7 } from '../../src/lib/ids.js';

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
  const user = await createUserAccount(t.db, {
    email,
    password: DEFAULT_PASSWORD,
    firstName: o.firstName ?? 'Test',
    lastName: o.lastName ?? 'User',
    isStaff: o.staff ?? false,
  });
  const { plaintext } = await createTokenService({ db: t.db }).issueToken(t.db, user.id, `key-${randomUUID().slice(0, 8)}`);
  return { user, email: user.email, password: DEFAULT_PASSWORD, token: plaintext };
}

export async function newToken(t: TestApp, u: TestUser, name = `key-${randomUUID().slice(0, 8)}`): Promise<string> {
  return (await createTokenService({ db: t.db }).issueToken(t.db, u.user.id, name)).plaintext;
}

/** A signed-in browser session for the user, with a matching CSRF cookie. */
export async function newSession(t: TestApp, u: TestUser): Promise<SessionCredentials> {
  const { cookieValue } = await createSessionService({ db: t.db, config: t.config }).startSession(u.user.id);
  const csrf = randomToken(24);
  return { cookie: `${SESSION_COOKIE}=${cookieValue}; ${CSRF_COOKIE}=${csrf}`, csrf, origin: t.config.http.publicOrigin };
}

export type MemberRole = 'admin' | 'contributor';

/** A book owned by the user, created through the API as a client would. */
export async function newBook(
  t: TestApp,
  owner: TestUser,
  o: { title?: string; plan?: string; isPublic?: boolean; theme?: string } = {},
): Promise<{ slug: string; etag: string; body: any }> {
  if (o.plan && o.plan !== 'free') await createQuotaService({ db: t.db }).grantSlots(owner.user.id, o.plan, 1);
  const res = await t.post(
    '/api/v1/books/',
    { title: o.title ?? `Book ${randomUUID().slice(0, 6)}`, ...(o.plan ? { plan: o.plan } : {}), ...(o.isPublic ? { is_public: true } : {}), ...(o.theme ? { theme: o.theme } : {}) },
    { token: owner.token },
  );
  if (res.status !== 201) throw new Error(`newBook failed: ${res.status} ${res.text}`);
  return { slug: res.body.slug, etag: res.body.etag, body: res.body };
}


/** Adds a member the way the operator CLI does (as the owner, under the same rules). */
export async function addMember(t: TestApp, slug: string, u: TestUser, role: MemberRole) {
  await t.services.members.addMemberAsOwner(slug, { userId: u.user.id }, role);
}

export async function setGrace(t: TestApp, slug: string, on: boolean) {
  await t.services.billing.setGracePeriod(slug, on ? null : 'off');
}

/**
 * A pending submission by `author`, written straight into the book the way the
 * web form and inbound channels will (any plan, any member, `source` web by
 * default). Through the API, use POST …/submissions/ instead.
 */
export async function newSubmission(t: TestApp, slug: string, author: TestUser, o: { text?: string; name?: string; source?: string } = {}) {
  const ctx = await findBookContext(t.db, slug, null);
  if (!ctx) throw new Error(`no book ${slug}`);
  return insertSubmission(t.db, {
    id: uuidv7(),
    bookId: ctx.book.id,
    contributorUserId: author.user.id,
    contributorName: o.name ?? null,
    contributorEmail: author.email,
    textContent: o.text ?? `A memory ${randomUUID().slice(0, 6)}`,
    isPrivate: false,
    source: o.source ?? 'web',
  });
}
