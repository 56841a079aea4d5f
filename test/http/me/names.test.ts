/**
 * Names (first_name, last_name, contributor_name) refuse control characters
 * wherever they are taken (422 from the API schemas, 422 pages from the web
 * forms), and no mail body carries a raw line break from a name.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { formPathOf, queuedMailsTo, webClient } from '../web/web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const BAD = ['Eve\nBcc: victim@example.test', 'Eve\r', 'A\u0000B', 'Tab\there', 'Del\u007f', 'C1\u0085'];

describe('PATCH /api/v1/me/', () => {
  it.each(BAD.map((v) => [JSON.stringify(v), v]))('422 for %s in first_name or last_name; the profile unchanged', async (_label, value) => {
    const u = await newUser(t, { firstName: 'Ada' });
    for (const field of ['first_name', 'last_name']) {
      const res = await t.patch('/api/v1/me/', { [field]: value }, { token: u.token });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body.detail)).toContain(field);
    }
    expect((await t.get('/api/v1/me/', { token: u.token })).body).toMatchObject({ first_name: 'Ada', last_name: u.user.last_name });
  });

  it('still takes names with accents, apostrophes and spaces', async () => {
    const u = await newUser(t);
    const res = await t.patch('/api/v1/me/', { first_name: "Zoë O'Brien-Łukasz", last_name: 'de la Cruz 李' }, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ first_name: "Zoë O'Brien-Łukasz", last_name: 'de la Cruz 李' });
  });
});

describe('contributor_name', () => {
  it('422 on create and on update through the API; nothing written', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const base = `/api/v1/books/${slug}/submissions/`;
    for (const value of BAD) {
      const res = await t.post(base, { text_content: 'A memory.', contributor_name: value }, { token: owner.token });
      expect(res.status).toBe(422);
    }
    const s = await newSubmission(t, slug, owner, { name: 'Aunt May' });
    expect((await t.patch(`${base}${s.id}/`, { contributor_name: 'Aunt\nMay' }, { token: owner.token })).status).toBe(422);
    const [row] = await t.db.query<{ n: number; name: string }>(
      `SELECT count(*)::int AS n, max(contributor_name) AS name FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`,
      [slug],
    );
    expect(row).toEqual({ n: 1, name: 'Aunt May' });
    expect((await t.post(base, { text_content: 'A memory.', contributor_name: 'Tía María' }, { token: owner.token })).status).toBe(201);
  });

  it("422 page from the contributor form, the words kept, nothing stored", async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const path = await formPathOf(t, slug);
    const c = webClient(t);
    await c.get(path);
    const res = await c.submitMultipart(path, [
      { name: 'name', data: 'Eve\r\nBcc: victim@example.test' },
      { name: 'text', data: 'Words worth keeping.' },
      { name: 'photo', filename: '', contentType: 'application/octet-stream', data: '' },
    ]);
    expect(res.status).toBe(422);
    expect(res.text).toContain('control characters');
    expect(res.text).toContain('Words worth keeping.');
    const urlencoded = await c.submit(path, { name: 'Eve\nX', text: 'More words.' });
    expect(urlencoded.status).toBe(422);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [slug]);
    expect(n).toBe(0);
  });
});

describe('mail bodies', () => {
  it('an inviter whose stored name holds a line break (written before names were checked): the invitation mail keeps it on one line', async () => {
    const owner = await newUser(t, { firstName: 'Olive' });
    await t.db.query(`UPDATE users SET first_name = $2, last_name = $3 WHERE id = $1`, [owner.user.id, 'Olive\r\nBcc: victim@example.test', 'Owner\n\nClick here: https://evil.example']);
    const { slug } = await newBook(t, owner, { title: 'Lake House' });
    const invitee = `names-${Date.now()}@example.test`;
    expect((await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: invitee }, { token: owner.token })).status).toBe(201);
    const [mail] = await queuedMailsTo(t, invitee);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    const firstLine = mail.text.split('\n')[0];
    expect(firstLine).toContain('Olive Bcc: victim@example.test Owner Click here: https://evil.example invited you');
    expect(mail.text).not.toMatch(/^Bcc:/m);
    expect(mail.text).not.toMatch(/^Click here/m);
  });
});
