/**
 * `/`: a contributor's home. Signed out, what this is and how to sign in;
 * signed in, their books (archived marked, deleted and left ones gone), each
 * with its form link and their own memories in it, never anyone else's.
 * Sign-in lands here (the "You were added to …" mail links here: invitations.dispatch.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

async function signedIn(u: { email: string; password: string }) {
  const c = webClient(t);
  await c.get('/accounts/login/');
  const res = await c.submit('/accounts/login/', { email: u.email, password: u.password });
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe('/');
  return c;
}

describe('GET /', () => {
  it('signed out: says what this is and how to sign in', async () => {
    const res = await webClient(t).get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('href="/accounts/login/"');
    expect(res.text).toContain('Sign in');
    expect(res.text).not.toContain('Your books');
  });

  it("signed in: each book with its form link and the caller's own memories, nobody else's", async () => {
    const owner = await newUser(t);
    const writer = await newUser(t);
    const neighbour = await newUser(t);
    const open = await newBook(t, owner, { title: 'Grandma turns 90' });
    const shelved = await newBook(t, owner, { title: 'Old trip' });
    const left = await newBook(t, owner, { title: 'Left behind' });
    for (const b of [open, shelved, left]) {
      await addMember(t, b.slug, writer, 'contributor');
      await addMember(t, b.slug, neighbour, 'contributor');
    }
    await newSubmission(t, open.slug, writer, { text: 'The lake at dawn <b>bold</b>' });
    await newSubmission(t, open.slug, neighbour, { text: 'Not the writer’s memory' });
    await newSubmission(t, left.slug, writer, { text: 'Written before leaving' });
    expect((await t.post(`/api/v1/books/${shelved.slug}/archive/`, {}, { token: owner.token })).status).toBe(200);
    expect((await t.delete(`/api/v1/books/${left.slug}/members/${writer.user.id}/`, { token: owner.token })).status).toBe(204);

    const c = await signedIn(writer);
    const home = await c.get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Your books');
    expect(home.text).toContain('Grandma turns 90');
    expect(home.text).toContain('Old trip');
    expect(home.text).toContain('Archived');
    expect(home.text).not.toContain('Left behind');
    expect(home.text).not.toContain('Written before leaving');
    // Escaped, never markup.
    expect(home.text).toContain('The lake at dawn &lt;b&gt;bold&lt;/b&gt;');
    expect(home.text).not.toContain('Not the writer’s memory');
    // The form link of the open book carries its key, as the channel status gives it to members.
    const formPath = await t.services.channels.webFormPathFor(open.slug);
    expect(formPath).toMatch(/^\/b\//);
    expect(home.text).toContain(`href="${formPath!.replace(/&/g, '&amp;')}"`);
    expect((await c.get(formPath!)).status).toBe(200);
  });

  it('a user in no book is told so', async () => {
    const c = await signedIn(await newUser(t));
    const home = await c.get('/');
    expect(home.text).toContain('You are not in any book yet');
  });
});
