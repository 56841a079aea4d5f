/** Rejection notifies the contributor: end to end, through the real queue and the outbox mailer. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newSubmission, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ worker: true });
});

const outbox = () => path.join(t.config.dataDir, 'outbox');
const mails = async () => {
  if (!existsSync(outbox())) return [];
  const files = readdirSync(outbox()).filter((f) => f.endsWith('.eml'));
  return Promise.all(files.map((f) => simpleParser(readFileSync(path.join(outbox(), f)))));
};
const mailsTo = async (email: string) => (await mails()).filter((m) => m.to && !Array.isArray(m.to) && m.to.value[0].address === email);

describe('POST …/reject/ emails the contributor', () => {
  it('sends one email with the reason; a repeated reject and other moves send none', async () => {
    const owner = await newUser(t);
    const author = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Lake House' })).slug;
    await addMember(t, slug, author, 'contributor');
    const s = await newSubmission(t, slug, author, { name: 'Cy', text: 'Swimming at dawn.' });
    const url = `/api/v1/books/${slug}/submissions/${s.id}/`;

    expect((await t.post(`${url}reject/`, { reason: 'Please add a photo.' }, { token: owner.token })).status).toBe(200);
    const [mail] = await eventually(() => mailsTo(author.email), (m) => m.length === 1);
    expect(mail.subject).toBe('Your memory for "Lake House" was not included');
    expect(mail.text).toContain('Hello Cy,');
    expect(mail.text).toContain('The reason given: Please add a photo.');
    expect(mail.text).toContain('> Swimming at dawn.');

    expect((await t.post(`${url}reject/`, { reason: 'again' }, { token: owner.token })).body.changed).toBe(false);
    await t.post(`${url}approve/`, undefined, { token: owner.token });
    await t.post(`${url}pin/`, undefined, { token: owner.token });
    // Approved → rejected is a second rejection: a second email.
    await t.post(`${url}reject/`, undefined, { token: owner.token });
    const both = await eventually(() => mailsTo(author.email), (m) => m.length === 2);
    expect(both.map((m) => m.text).some((text) => text?.includes('No reason was given.'))).toBe(true);
  });

  it('a refused reject sends nothing', async () => {
    const owner = await newUser(t);
    const author = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    await addMember(t, slug, author, 'contributor');
    const s = await newSubmission(t, slug, author);
    expect((await t.post(`/api/v1/books/${slug}/submissions/${s.id}/reject/`, { reason: 'x' }, { token: author.token })).status).toBe(403);
    expect((await t.post(`/api/v1/books/${slug}/submissions/${crypto.randomUUID()}/reject/`, { reason: 'x' }, { token: owner.token })).status).toBe(404);
    const jobs = await t.db.query(`SELECT 1 FROM ${t.queue.schema}.job WHERE name = 'mail.send' AND data->>'to' = $1`, [author.email]);
    expect(jobs).toEqual([]);
  });
});
