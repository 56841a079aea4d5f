import type { Config } from '../../config/config.js';
import type { Db, Queryable } from '../../db/client.js';
import { UNIQUE_VIOLATION, pgErrorCode } from '../../db/client.js';
import { AppError, errors } from '../../errors.js';
import { assertIfMatch } from '../../http/etag.js';
import { createdDesc, type CursorCodec, type SortKey, toPage } from '../../http/lists.js';
import { uuidv7 } from '../../lib/ids.js';
import { findDefaultPlan, findPlan, listPlans } from '../plans/plan-repository.js';
import type { BooksSort } from '../users/user-types.js';
import { toBook } from './book-mapper.js';
import {
  findBookForUpdate,
  insertBook,
  listBooksForUser,
  setBookStatus,
  slugExists,
  updateBookFields,
  type BookListRow,
} from './book-repository.js';
import { DEFAULT_THEME, THEMES, USE_CASES, type BookContext, type BookInput, type BookRow } from './book-types.js';
import { slugCandidates } from './slug.js';

const MAX_SETTINGS_BYTES = 16 * 1024;

const ID_DESC: SortKey = { sql: 'b.id', dir: 'desc', field: 'id', cast: 'uuid' };
const ID_ASC: SortKey = { sql: 'b.id', dir: 'asc', field: 'id', cast: 'uuid' };

/** GET /books/ orderings: the caller's books_sort, or oldest change first when syncing with updated_since. */
export const BOOK_ORDERINGS: Record<BooksSort | 'sync', SortKey[]> = {
  activity: [{ sql: 'b.last_activity_at', dir: 'desc', field: 'last_activity_at', cast: 'timestamptz' }, ID_DESC],
  title: [{ sql: 'lower(b.title)', dir: 'asc', field: 'sort_title', cast: 'text' }, ID_ASC],
  created: createdDesc('b'),
  role: [{ sql: `CASE m.role WHEN 'owner' THEN 0 ELSE 1 END`, dir: 'asc', field: 'role_rank', cast: 'int' }, ...createdDesc('b')],
  sync: [{ sql: 'GREATEST(b.updated_at, m.updated_at)', dir: 'asc', field: 'sync_at', cast: 'timestamptz' }, ID_ASC],
};

/** Checks the values the schema cannot: catalog membership (400 with details.offered) and settings size. */
function assertBookValues(input: BookInput) {
  if (input.theme !== undefined && !(THEMES as readonly string[]).includes(input.theme)) {
    throw errors.validation(`Unknown theme "${input.theme}".`, { field: 'theme', offered: [...THEMES] });
  }
  if (input.use_case_slug != null && !(USE_CASES as readonly string[]).includes(input.use_case_slug)) {
    throw errors.validation(`Unknown use case "${input.use_case_slug}".`, { field: 'use_case_slug', offered: [...USE_CASES] });
  }
  if (input.settings !== undefined && JSON.stringify(input.settings).length > MAX_SETTINGS_BYTES) {
    throw errors.validation(`settings must serialise to at most ${MAX_SETTINGS_BYTES} bytes of JSON.`, { field: 'settings' });
  }
  if (input.title !== undefined && input.title.trim() === '') {
    throw errors.validation('The title cannot be blank.', { field: 'title' });
  }
}

export function createBookService(deps: { db: Db; config: Config; cursors: CursorCodec }) {
  const { db, config, cursors } = deps;

  return {
    /**
     * Creates a book owned by the caller. A non-default plan consumes one held
     * slot in the same transaction; with none free the answer is 402 with the
     * checkout hint, and nothing is written.
     */
    async createBook(userId: string, input: BookInput & { title: string; plan?: string }) {
      assertBookValues(input);
      const plans = await listPlans(db);
      const plan = input.plan === undefined ? plans.find((p) => p.is_default)! : plans.find((p) => p.slug === input.plan);
      if (!plan) throw errors.validation(`Unknown plan "${input.plan}".`, { field: 'plan', offered: plans.map((p) => p.slug) });

      for (const slug of slugCandidates(input.title)) {
        if (await slugExists(db, slug)) continue;
        try {
          return await db.transaction(async (tx) => {
            if (!plan.is_default) await consumeSlot(tx, userId, plan.slug, config);
            const book = await insertBook(tx, {
              id: uuidv7(),
              slug,
              ownerId: userId,
              title: input.title.trim(),
              subtitle: input.subtitle ?? '',
              theme: input.theme ?? DEFAULT_THEME,
              settings: input.settings ?? {},
              useCaseSlug: input.use_case_slug ?? null,
              isPublic: input.is_public ?? false,
              planSlug: plan.slug,
            });
            await appendBillingRecord(tx, book.id, plan.slug, 'active', null);
            return toBook(book, 'owner');
          });
        } catch (err) {
          // Another book took this slug between the check and the insert: try the next candidate.
          if (pgErrorCode(err) === UNIQUE_VIOLATION && String((err as { constraint?: string }).constraint ?? '').includes('slug')) continue;
          if (pgErrorCode(err) === UNIQUE_VIOLATION && /slug/.test(String((err as Error).message))) continue;
          throw err;
        }
      }
      throw new AppError('conflict', 'Could not find a free slug for this title; try a slightly different title.');
    },

    async listBooks(userId: string, sort: BooksSort, q: { limit: number; cursor?: string; updatedSince: string | null; status: 'active' | 'archived' }) {
      const orderingName = q.updatedSince ? 'books:sync' : `books:${sort}`;
      const keys = BOOK_ORDERINGS[q.updatedSince ? 'sync' : sort];
      const after = q.cursor ? cursors.decode(orderingName, q.cursor) : null;
      const rows = await listBooksForUser(db, userId, { status: q.status, updatedSince: q.updatedSince, keys, after, limit: q.limit });
      const page = toPage<BookListRow & Record<string, unknown>>(rows as (BookListRow & Record<string, unknown>)[], q.limit, keys, cursors, orderingName);
      return { ...page, items: page.items.map((b) => toBook(b, b.role)) };
    },

    /** Applies a partial update under an optional If-Match, atomically with the check. */
    async updateBook(ctx: BookContext, patch: BookInput, ifMatch: string | undefined) {
      assertBookValues(patch);
      return db.transaction(async (tx) => {
        const current = await findBookForUpdate(tx, ctx.book.id);
        if (!current) throw errors.notFound('book');
        assertIfMatch(ifMatch, `"${current.updated_at}"`);
        const clean = { ...patch, ...(patch.title !== undefined ? { title: patch.title.trim() } : {}) };
        return toBook(await updateBookFields(tx, ctx.book.id, clean), ctx.role);
      });
    },

    /** Archive or restore; moving to the status already held is a no-op that answers the book. */
    async setStatus(ctx: BookContext, status: 'active' | 'archived') {
      const moved = await setBookStatus(db, ctx.book.id, status);
      return { book: toBook(moved ?? ctx.book, ctx.role), changed: moved !== undefined };
    },
  };
}
export type BookService = ReturnType<typeof createBookService>;

async function consumeSlot(tx: Queryable, userId: string, planSlug: string, config: Config) {
  const taken = await tx.query(
    `UPDATE book_slots SET used = used + 1 WHERE user_id = $1 AND plan_slug = $2 AND used < purchased RETURNING 1`,
    [userId, planSlug],
  );
  if (!taken.length) {
    throw new AppError('payment_required', `No free ${planSlug} book slot; buy one at the checkout URL, then retry.`, {
      plan: planSlug,
      checkout_url: `${config.http.publicUrl}/billing/checkout/?plan=${encodeURIComponent(planSlug)}`,
    });
  }
}

export async function appendBillingRecord(
  q: Queryable,
  bookId: string,
  planSlug: string,
  status: 'active' | 'grace_period' | 'canceled',
  graceEndsAt: string | null,
) {
  await q.query(
    `INSERT INTO billing_records (id, book_id, plan_slug, status, period_start, period_end, grace_period_ends_at)
     VALUES ($1, $2, $3, $4, now(), NULL, $5)`,
    [uuidv7(), bookId, planSlug, status, graceEndsAt],
  );
}

export { findPlan, findDefaultPlan };
export type { BookRow };
