/**
 * A new memory locks its book last (BookAccess.writeThenLock): it decides on
 * the book as it read it, inserts, and takes the book's row lock only as the
 * transaction's last step, deciding again on what the lock returns. These
 * tests commit a change of the book from another connection in between,
 * which needs a second connection: PostgreSQL only (PGlite is one session).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb, type Db, type Queryable } from '../../../src/db/client.js';
import { createCursorCodec } from '../../../src/db/pagination.js';
import { AppError } from '../../../src/errors.js';
import { createBookAccess } from '../../../src/services/books/book-access.js';
import { createMediaViews } from '../../../src/services/media/media-views.js';
import { createSubmissionService } from '../../../src/services/submissions/submission-service.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser, type TestUser } from '../../helpers/factories.js';
import { TEST_DATABASE_URL, TEST_DATABASE_POOLER } from '../../helpers/test-db.js';

let t: TestApp;
let other: Db;
/** What a concurrent writer commits while the memory is being written (after its insert, before its lock). */
let meanwhile: ((tx: Queryable) => Promise<void>) | undefined;

beforeAll(async () => {
  if (!TEST_DATABASE_URL) return;
  t = await buildTestApp();
  other = createPostgresDb(TEST_DATABASE_URL, { schema: t.database.schema, poolSize: 2, pooler: TEST_DATABASE_POOLER });
});
afterAll(async () => {
  await other?.close();
  await t?.close();
});

function service() {
  return createSubmissionService({
    db: t.db,
    cursors: createCursorCodec('test'),
    access: createBookAccess({ db: t.db }),
    views: createMediaViews({ store: t.services.store }),
    media: t.services.media,
    queue: t.queue,
    enqueueMail: async () => {},
    // Runs inside the memory's transaction, after its insert: the moment a concurrent change lands.
    announce: async (tx) => {
      const change = meanwhile;
      meanwhile = undefined;
      await change?.(tx);
    },
  });
}

async function memories(slug: string, text: string): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1 AND s.text_content = $2`,
    [slug, text],
  );
  return row.n;
}

const actor = (u: TestUser) => ({ id: u.user.id, email: u.email });

describe.skipIf(!TEST_DATABASE_URL)('a new memory decides again under its book lock, at the end', () => {
  it('a grace period committed meanwhile refuses the memory and leaves nothing', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    meanwhile = async () => {
      await other.query(`UPDATE books SET billing_status = 'grace_period', grace_period_ends_at = now() + interval '7 days' WHERE slug = $1`, [slug]);
    };
    const err = await t.db
      .transaction((tx) => service().createSubmission(tx, actor(owner), slug, { text_content: 'Written during the change' }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('book_grace_period');
    expect(await memories(slug, 'Written during the change')).toBe(0);
  });

  it("moves the book's activity as it locks it, never the book's updated_at", async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const [before] = await t.db.query<{ last_activity_at: string; updated_at: string }>(`SELECT last_activity_at, updated_at FROM books WHERE slug = $1`, [slug]);
    const created = await t.db.transaction((tx) => service().createSubmission(tx, actor(owner), slug, { text_content: 'Plain memory' }));
    expect(created.status).toBe('pending');
    const [after] = await t.db.query<{ last_activity_at: string; updated_at: string }>(`SELECT last_activity_at, updated_at FROM books WHERE slug = $1`, [slug]);
    // The activity moves; the book's own representation (and so its ETag) does not.
    expect(after.last_activity_at > before.last_activity_at).toBe(true);
    expect(after.updated_at).toBe(before.updated_at);
  });

  it('a member removed meanwhile loses the write', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    await t.services.members.addMemberAsOwner(slug, { userId: admin.user.id }, 'admin');
    meanwhile = async () => {
      await other.query(`DELETE FROM book_members WHERE user_id = $1 AND book_id = (SELECT id FROM books WHERE slug = $2)`, [admin.user.id, slug]);
    };
    const err = await t.db
      .transaction((tx) => service().createSubmission(tx, actor(admin), slug, { text_content: 'Sent while being removed' }))
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe('not_found');
    expect(await memories(slug, 'Sent while being removed')).toBe(0);
  });
});
