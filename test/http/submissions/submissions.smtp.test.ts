/** Rejection mail over SMTP: the real queue delivers to a real SMTP server started here. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';

let t: TestApp;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ worker: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Memory Book <books@example.test>' } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

describe('rejection notification over SMTP', () => {
  it('reaches the contributor with the book in the subject and the reason in the body', async () => {
    const owner = await newUser(t);
    const author = await newUser(t, { firstName: 'Cy' });
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Lake House' })).slug;
    await addMember(t, slug, author, 'contributor');
    const s = await newSubmission(t, slug, author, { name: 'Cy', text: 'Swimming at dawn.' });

    const res = await t.post(`/api/v1/books/${slug}/submissions/${s.id}/reject/`, { reason: 'Please add a photo of the dock.' }, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'reject', changed: true, submission: { status: 'rejected' } });

    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toEqual([author.email]);
    expect(mail.from).toBe('books@example.test');
    expect(mail.subject).toContain('Lake House');
    expect(mail.text).toContain('Please add a photo of the dock.');
    // The request did not wait for the mail server: delivery happened on the worker.
    expect(smtp.received).toHaveLength(1);
  });
});
