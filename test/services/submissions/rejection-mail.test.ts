/**
 * The rejection notification, through the real service on a real database
 * with a recording enqueueMail (the mail.send job is wired by the lead).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../../src/db/client.js';
import { createCursorCodec } from '../../../src/db/pagination.js';
import type { MailMessage } from '../../../src/mail/mailer.js';
import { createBookAccess } from '../../../src/services/books/book-access.js';
import { createSubmissionService } from '../../../src/services/submissions/submission-service.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { createMediaViews } from '../../../src/services/media/media-views.js';

let t: TestApp;
const sent: { message: MailMessage; tx: Queryable }[] = [];
let failNext = false;

beforeAll(async () => {
  t = await buildTestApp();
});

function service() {
  return createSubmissionService({
    db: t.db,
    cursors: createCursorCodec('test'),
    access: createBookAccess({ db: t.db }),
    views: t.services.store && createMediaViews({ store: t.services.store }),
    media: t.services.media,
    queue: t.queue,
    async enqueueMail(message, tx) {
      if (failNext) {
        failNext = false;
        throw new Error('queue down');
      }
      // It runs inside the moderation transaction: the row is already rejected there.
      const [row] = await tx.query<{ status: string }>(`SELECT status FROM submissions WHERE contributor_email = $1 ORDER BY updated_at DESC LIMIT 1`, [message.to]);
      expect(row.status).toBe('rejected');
      sent.push({ message, tx });
    },
  });
}

describe('reject notifies the contributor', () => {
  it('enqueues one email with the reason, in the transaction; repeats and other moves send nothing', async () => {
    const owner = await newUser(t);
    const author = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus', title: 'Summer 2026' })).slug;
    const s = await newSubmission(t, slug, author, { name: 'Bea', text: 'The lake at dawn.' });
    const svc = service();
    sent.length = 0;

    const res = await t.db.transaction((tx) => svc.moderate(tx, owner.user, slug, s.id, 'reject', '  Too blurry  '));
    expect(res.changed).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0].message).toMatchObject({ to: author.email, subject: 'Your memory for "Summer 2026" was not included' });
    expect(sent[0].message.text).toContain('The reason given: Too blurry');
    expect(sent[0].message.text).toContain('Hello Bea,');

    await t.db.transaction((tx) => svc.moderate(tx, owner.user, slug, s.id, 'reject', 'again'));
    await t.db.transaction((tx) => svc.moderate(tx, owner.user, slug, s.id, 'approve'));
    await t.db.transaction((tx) => svc.moderate(tx, owner.user, slug, s.id, 'pin'));
    expect(sent).toHaveLength(1);
  });

  it('sends nothing when there is no contributor email', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const s = await newSubmission(t, slug, owner);
    await t.db.query(`UPDATE submissions SET contributor_email = NULL WHERE id = $1`, [s.id]);
    sent.length = 0;
    expect((await t.db.transaction((tx) => service().moderate(tx, owner.user, slug, s.id, 'reject', 'x'))).changed).toBe(true);
    expect(sent).toHaveLength(0);
  });

  it('a failure to enqueue rolls the rejection back', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const s = await newSubmission(t, slug, owner);
    failNext = true;
    await expect(t.db.transaction((tx) => service().moderate(tx, owner.user, slug, s.id, 'reject', 'x'))).rejects.toThrow('queue down');
    const [row] = await t.db.query<{ status: string; rejection_reason: string | null }>(`SELECT status, rejection_reason FROM submissions WHERE id = $1`, [s.id]);
    expect(row).toEqual({ status: 'pending', rejection_reason: null });
  });
});
