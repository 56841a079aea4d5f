/**
 * The invitation acceptance page, /invitations/{token}/, reached from the
 * link in the real invitation mail (SMTP test server, real queue and worker).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newUser, setGrace, type TestUser } from '../../helpers/factories.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { formPathOf, signUp, webClient, type WebClient } from './web-client.js';

let t: TestApp;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ worker: true, env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const inviteeEmail = () => `invitee-${randomUUID().slice(0, 8)}@example.test`;

/** Invites through the API, then takes the link from the mail the invitee received. */
async function invite(owner: TestUser, slug: string, email: string, role?: 'admin' | 'contributor') {
  const res = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: email, ...(role ? { role } : {}) }, { token: owner.token });
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('pending');
  const mail = await eventually(async () => smtp.received.find((m) => m.to.includes(email)));
  const link = new RegExp(`${t.config.http.publicUrl}(/invitations/([A-Za-z0-9_-]{43})/)`).exec(mail!.text);
  expect(link, mail!.text).not.toBeNull();
  return { id: res.body.id as string, path: link![1], token: link![2] };
}

async function invitationStatus(owner: TestUser, slug: string, id: string) {
  const list = await t.get(`/api/v1/books/${slug}/invitations/`, { token: owner.token });
  return (list.body.items as any[]).find((i) => i.id === id)?.status;
}

async function memberRole(owner: TestUser, slug: string, email: string) {
  const list = await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token, query: { limit: '200' } });
  return (list.body.items as any[]).find((m) => m.email === email)?.role ?? null;
}

async function signedIn(email = inviteeEmail()): Promise<{ client: WebClient; email: string }> {
  const { client } = await signUp(t, { email });
  return { client, email: email.toLowerCase() };
}

/** The account row of an address, as addMember takes it. */
async function newUserRow(email: string) {
  const [row] = await t.db.query<{ id: string; email: string }>(`SELECT id, email FROM users WHERE email = $1`, [email]);
  return { user: row, email: row.email };
}

describe('a pending invitation', () => {
  it('signed out: shows the book, the role and who invited; offers sign up and sign in that come back here', async () => {
    const owner = await newUser(t, { firstName: 'Olive', lastName: 'Owner' });
    const { slug } = await newBook(t, owner, { title: 'Lake House' });
    const { path } = await invite(owner, slug, inviteeEmail());
    const c = webClient(t);
    const page = await c.get(path);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('Lake House');
    expect(page.text).toContain('<strong>Olive Owner</strong> invited you');
    expect(page.text).toContain('<strong>a contributor</strong>');
    const next = encodeURIComponent(path);
    expect(page.text).toContain(`href="/accounts/signup/?next=${next}"`);
    expect(page.text).toContain(`href="/accounts/login/?next=${next}"`);
    expect(page.text).not.toContain('Accept invitation');
  });

  it('sign up from the page, come back, accept in one click: a member with the invited role, the invitation accepted', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { title: 'Garden Party' });
    const email = inviteeEmail();
    const { id, path } = await invite(owner, slug, email, 'admin');
    const c = webClient(t);
    const signup = await c.get(`/accounts/signup/?next=${encodeURIComponent(path)}`);
    expect(signup.text).toContain(`<input type="hidden" name="next" value="${path}">`);
    // The page offers the invited address; signing up with it needs no confirmation mail (the link proved the address).
    expect(signup.text).toContain(`value="${email}"`);
    const created = await c.submit('/accounts/signup/', { email: email.toUpperCase(), password: 'a long enough password', next: path });
    expect(created.status).toBe(303);
    expect(created.headers.location).toBe(path);
    expect(created.cookies.mb_session).toBeDefined();

    const page = await c.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Accept invitation');
    expect(page.text).toContain(`Accepting as <bdi>${email}</bdi>`);
    expect(await memberRole(owner, slug, email)).toBeNull();

    const accepted = await c.submit(path, {});
    expect(accepted.status).toBe(303);
    expect(accepted.headers.location).toBe(path);
    expect(await memberRole(owner, slug, email)).toBe('admin');
    expect(await invitationStatus(owner, slug, id)).toBe('accepted');
    const [row] = (await t.get(`/api/v1/books/${slug}/invitations/`, { token: owner.token })).body.items as any[];
    const userId = (await t.db.query<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [email]))[0].id;
    expect(row).toMatchObject({ id, status: 'accepted', accepted_by: userId });

    const welcome = await c.get(path);
    expect(welcome.status).toBe(200);
    expect(welcome.text).toContain('Welcome to Garden Party');
    expect(welcome.text).toContain('You are now an admin of this book.');
    // The book is not public: its form's link carries the form key.
    expect(welcome.text).toContain(`href="${(await formPathOf(t, slug))}"`);
    // A second click (another tab) changes nothing.
    expect((await c.submit(path, {})).status).toBe(303);
    expect(await memberRole(owner, slug, email)).toBe('admin');
  });

  it('sign in from the page comes back to it', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const { path } = await invite(owner, slug, inviteeEmail());
    const u = await newUser(t);
    const c = webClient(t);
    const login = await c.get(`/accounts/login/?next=${encodeURIComponent(path)}`);
    expect(login.text).toContain(`href="/accounts/signup/?next=${encodeURIComponent(path)}"`);
    const res = await c.submit('/accounts/login/', { email: u.email, password: u.password, next: path });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(path);
  });

  it('only the account with the invited address accepts it; anyone else signed in is told which address, and nothing changes', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const member = await newUser(t);
    await addMember(t, slug, member, 'admin');
    const invited = inviteeEmail();
    const { id, path } = await invite(owner, slug, invited, 'contributor');
    // A forwarded link, opened by a member and by a stranger: the address page, 403, GET and POST.
    for (const other of [member, await newUser(t)]) {
      const c = webClient(t);
      await c.get('/accounts/login/');
      await c.submit('/accounts/login/', { email: other.email, password: other.password });
      const page = await c.get(path);
      expect(page.status).toBe(403);
      expect(page.text).toContain('This invitation is for another address');
      expect(page.text).toContain(invited);
      expect(page.text).not.toContain('Accept invitation');
      const res = await c.submit(path, {});
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(path);
      expect((await c.get(path)).status).toBe(403);
    }
    expect(await memberRole(owner, slug, member.email)).toBe('admin');
    expect(await invitationStatus(owner, slug, id)).toBe('pending');
    expect((await t.db.query(`SELECT 1 FROM book_members m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug])).length).toBe(2);
    // The invited address, in any case, accepts it.
    const { client } = await signedIn(invited.toUpperCase());
    expect((await client.get(path)).status).toBe(200);
    expect((await client.submit(path, {})).status).toBe(303);
    expect(await memberRole(owner, slug, invited)).toBe('contributor');
    expect(await invitationStatus(owner, slug, id)).toBe('accepted');
  });

  it('a member with the invited address keeps their role', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const email = inviteeEmail();
    const { path } = await invite(owner, slug, email, 'contributor');
    const { client } = await signedIn(email);
    await addMember(t, slug, (await newUserRow(email)) as unknown as TestUser, 'admin');
    const page = await client.get(path);
    expect(page.text).toContain('You are already an admin of this book');
    expect((await client.submit(path, {})).status).toBe(303);
    expect(await memberRole(owner, slug, email)).toBe('admin');
  });

  it('POST signed out goes to sign in, and back here after', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const { id, path } = await invite(owner, slug, inviteeEmail());
    const c = webClient(t);
    await c.get(path);
    const res = await c.submit(path, {});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/accounts/login/?next=${encodeURIComponent(path)}`);
    expect(await invitationStatus(owner, slug, id)).toBe('pending');
  });

  it('POST without the CSRF token (or from another site): 403, nothing changes', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const invited = inviteeEmail();
    const { id, path } = await invite(owner, slug, invited);
    const { client, email } = await signedIn(invited);
    await client.get(path);
    expect((await client.submit(path, {}, { csrf: null })).status).toBe(403);
    expect((await client.submit(path, {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await memberRole(owner, slug, email)).toBeNull();
    expect(await invitationStatus(owner, slug, id)).toBe('pending');
  });
});

describe('links that cannot be used', () => {
  it('an unknown or malformed token: 404 page, GET and POST', async () => {
    const { client } = await signedIn();
    for (const token of ['A'.repeat(43), 'short', 'not a token!']) {
      const path = `/invitations/${encodeURIComponent(token)}/`;
      const page = await client.get(path);
      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('We couldn’t find this invitation');
      expect((await client.submit(path, {})).status).toBe(404);
    }
  });

  it('revoked: 410 page, and accepting changes nothing', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const { id, path } = await invite(owner, slug, inviteeEmail());
    expect((await t.delete(`/api/v1/books/${slug}/invitations/${id}/`, { token: owner.token })).status).toBe(200);
    const { client, email } = await signedIn();
    const page = await client.get(path);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This invitation was withdrawn');
    const res = await client.submit(path, {});
    expect(res.status).toBe(410);
    expect(await memberRole(owner, slug, email)).toBeNull();
    expect(await invitationStatus(owner, slug, id)).toBe('revoked');
  });

  it('expired: 410 page (signed in or not), and accepting changes nothing', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const { id, path } = await invite(owner, slug, inviteeEmail());
    await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [id]);
    const signedOut = await webClient(t).get(path);
    expect(signedOut.status).toBe(410);
    expect(signedOut.text).toContain('This invitation has expired');
    const { client, email } = await signedIn();
    expect((await client.get(path)).status).toBe(410);
    const res = await client.submit(path, {});
    expect(res.status).toBe(410);
    expect(res.text).toContain('This invitation has expired');
    expect(await memberRole(owner, slug, email)).toBeNull();
    expect(await invitationStatus(owner, slug, id)).toBe('expired');
  });

  it('already accepted by someone else: 410 for others, the welcome for its member', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const invited = inviteeEmail();
    const { path } = await invite(owner, slug, invited);
    const first = await signedIn(invited);
    await first.client.get(path);
    expect((await first.client.submit(path, {})).status).toBe(303);
    const second = await signedIn();
    const page = await second.client.get(path);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This invitation has already been used');
    expect((await second.client.submit(path, {})).status).toBe(410);
    expect(await memberRole(owner, slug, second.email)).toBeNull();
    expect((await webClient(t).get(path)).status).toBe(410);
    expect((await first.client.get(path)).status).toBe(200);
  });

  it('a full book: 402 page, not a member, the invitation still pending', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner); // free: 5 members, the owner included
    for (let i = 0; i < 4; i++) await addMember(t, slug, await newUser(t), 'contributor');
    const invited = inviteeEmail();
    const { id, path } = await invite(owner, slug, invited);
    const { client, email } = await signedIn(invited);
    await client.get(path);
    const res = await client.submit(path, {});
    expect(res.status).toBe(402);
    expect(res.text).toContain('This book is full');
    expect(await memberRole(owner, slug, email)).toBeNull();
    expect(await invitationStatus(owner, slug, id)).toBe('pending');
    // Room made: the same link works.
    const members = (await t.get(`/api/v1/books/${slug}/members/`, { token: owner.token })).body.items as any[];
    const someone = members.find((m) => m.role === 'contributor');
    expect((await t.delete(`/api/v1/books/${slug}/members/${someone.user_id}/`, { token: owner.token })).status).toBe(204);
    expect((await client.submit(path, {})).status).toBe(303);
    expect(await memberRole(owner, slug, email)).toBe('contributor');
  });

  it('a book in its billing grace period: 403 page, then accepted once it ends', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const invited = inviteeEmail();
    const { id, path } = await invite(owner, slug, invited);
    await setGrace(t, slug, true);
    const { client, email } = await signedIn(invited);
    await client.get(path);
    const res = await client.submit(path, {});
    expect(res.status).toBe(403);
    expect(res.text).toContain('This book is paused');
    expect(await invitationStatus(owner, slug, id)).toBe('pending');
    await setGrace(t, slug, false);
    expect((await client.submit(path, {})).status).toBe(303);
    expect(await memberRole(owner, slug, email)).toBe('contributor');
  });

  it('a deleted book: 404', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const { path } = await invite(owner, slug, inviteeEmail());
    expect((await t.delete(`/api/v1/books/${slug}/`, { token: owner.token })).status).toBeLessThan(300);
    const { client } = await signedIn();
    expect((await client.get(path)).status).toBe(404);
    expect((await client.submit(path, {})).status).toBe(404);
  });
});

describe('next after sign-up stays on this site', () => {
  it.each(['https://evil.example/', '//evil.example/', '/\\evil.example', '/.//evil.example'])('%s', async (next) => {
    const c = webClient(t);
    const page = await c.get(`/accounts/signup/?next=${encodeURIComponent(next)}`);
    expect(page.text).not.toContain('evil.example');
    const { confirmed } = await signUp(t, { email: inviteeEmail(), next }, c);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.location).toBe('/');
  });
});
