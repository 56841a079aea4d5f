import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { paginate, type CursorCodec, type ListQuery, type SortKey } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import { etagOf } from '../../lib/etag.js';
import { uuidv7 } from '../../lib/ids.js';
import { listPlanRows } from '../plans/plan-service.js';
import { PLAN_FEATURES } from '../plans/plan-types.js';
import type { BooksSort } from '../users/user-types.js';
import { accessState, allowedActions, type Actor, type BookAccess } from './book-access.js';
import type { BackupErasure, BookDeletion } from './book-deletion.js';
import { recordEvent } from '../events/record-event.js';
import { bookJson, toBook } from './book-mapper.js';
import { coverOf, coverView, findCoverFile, findCoverFiles } from './cover-views.js';
import { dropUploadedCover, examineCoverUpload, findMemoryPhoto, focalOfStored, insertCoverMedia, memoryPhotoForCover, renewCoverCards, setCoverColumns, type CoverFindings } from './cover-writes.js';
import type { FocalPoint } from '../../media-tools/focal-crop.js';
import { createClamavScanner } from '../../media-tools/virus-scanner.js';
import { overStorage } from '../media/media-policy.js';
import { takePendingObject } from '../media/media-service.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { addStorageUsed, findBookForUpdate, insertBillingRecord, insertBook, selectBookPageOfMember, setBookStatus, takeBookSlot, updateBookFields, type ActivityHead, type BookPageRow } from './book-repository.js';
import { BOOK_LANGUAGES, DEFAULT_THEME, THEMES, USE_CASES, type BookInput, type BookRow } from './book-types.js';
import { slugCandidates } from './slug.js';

const MAX_SETTINGS_BYTES = 16 * 1024;

const ID_DESC: SortKey = { sql: 'm.book_id', dir: 'desc', field: 'id', cast: 'uuid' };
const ID_ASC: SortKey = { sql: 'm.book_id', dir: 'asc', field: 'id', cast: 'uuid' };
const CREATED_DESC: SortKey = { sql: 'm.book_created_at', dir: 'desc', field: 'created_at', cast: 'timestamptz' };

/** The ten-minute bucket of the book's last activity, as its memberships hold it (migrations/0025_book_activity_bucket.sql). */
const ACTIVITY_BUCKET_DESC: SortKey = { sql: 'm.book_activity_bucket', dir: 'desc', field: 'activity_bucket', cast: 'integer' };

/**
 * GET /books/ orderings: the caller's books_sort, or oldest change first when
 * syncing with updated_since. Each reads the membership row's copies of its
 * book's columns, in the order of one index (migrations/0013_book_list_keys.sql).
 * Activity is the one exception: the membership holds only the bucket of the
 * book's last activity (so a new memory need not rewrite every membership),
 * and each bucket's rows are sorted by the book's exact time. The bucket
 * grows with the time, so the order is exactly time, then id.
 * `name` binds cursors to the ordering.
 */
export const BOOK_ORDERINGS: Record<BooksSort | 'sync', { name: string; keys: SortKey[] }> = {
  activity: {
    name: 'activity-bucketed',
    keys: [ACTIVITY_BUCKET_DESC, { sql: 'b.last_activity_at', dir: 'desc', field: 'last_activity_at', cast: 'timestamptz' }, ID_DESC],
  },
  title: { name: 'title', keys: [{ sql: 'm.book_title_key', dir: 'asc', field: 'sort_title', cast: 'text' }, ID_ASC] },
  created: { name: 'created', keys: [CREATED_DESC, ID_DESC] },
  // Owners first, then admins, each newest first.
  role: { name: 'role-owner-first', keys: [{ sql: `(m.role = 'owner')`, dir: 'desc', field: 'owner_first', cast: 'boolean' }, CREATED_DESC, ID_DESC] },
  sync: { name: 'sync', keys: [{ sql: 'GREATEST(m.book_updated_at, m.updated_at)', dir: 'asc', field: 'sync_at', cast: 'timestamptz' }, ID_ASC] },
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
  const language = input.settings?.language;
  if (language !== undefined && !(BOOK_LANGUAGES as readonly unknown[]).includes(language)) {
    throw errors.validation(`Unknown settings.language ${JSON.stringify(language)}.`, { field: 'settings.language', offered: [...BOOK_LANGUAGES] });
  }
  if (input.title !== undefined && input.title.trim() === '') {
    throw errors.validation('The title cannot be blank.', { field: 'title' });
  }
}

export function createBookService(deps: {
  db: Db;
  config: Config;
  cursors: CursorCodec;
  access: BookAccess;
  deletion: BookDeletion;
  /** Signs the cover's URL; reads a chosen photo to find its subject. */
  store: ObjectStore;
  /** Removes a replaced uploaded cover's object once the change commits. */
  queue: JobSender;
  /** A book made with a slot of a paid plan, in its `tx`: ties it to the subscription that bought the slot, if one did. */
  onPaidBookCreated?: (tx: Tx, book: { id: string; ownerId: string; planSlug: string }) => Promise<boolean>;
}) {
  const { db, config, cursors, access, deletion, store } = deps;

  /** The Book as `role` reads it, with its cover signed. */
  async function present(q: Queryable, row: BookRow, role: Parameters<typeof toBook>[1]) {
    return toBook(row, role, await coverOf(q, store, row));
  }


  /** A plan the caller named; unknown: 400 with the plans on offer. */
  async function findNamedPlan(q: Queryable, slug: string) {
    const plans = await listPlanRows(q);
    const plan = plans.find((p) => p.slug === slug);
    if (!plan) throw errors.validation(`Unknown plan "${slug}".`, { field: 'plan', offered: plans.map((p) => p.slug) });
    return plan;
  }


  const scanner = config.media.clamav ? createClamavScanner(config.media.clamav) : null;

  /** Queues removal of stored objects in the caller's transaction (they go only if the change commits). */
  async function deleteObjectsLater(q: Tx, keys: (string | null)[]) {
    const real = keys.filter((k): k is string => Boolean(k));
    if (!real.length) return;
    await deps.queue.send('storage.delete-objects', { keys: real }, { tx: q });
  }

  /** After a cover change (in its transaction): the share cards drawn with the cover before or after are made again. */
  async function coverChanged(q: Tx, bookId: string, before: string | null, after: string | null) {
    await renewCoverCards(q, deps.queue, bookId, [before, after]);
  }

  /**
   * The subject of a memory's photo chosen as the cover without a focal point,
   * found before the book is locked (reading the image takes up to a second,
   * which no other writer of the book should wait for). Undefined when there
   * is nothing to find, or when the choice will be refused: the locked path
   * then answers with the error in its proper order (after If-Match).
   */
  async function subjectBeforeLock(tx: Tx, actor: Actor, slug: string, mediaId: string | null | undefined, focal: FocalPoint | undefined) {
    if (typeof mediaId !== 'string' || focal !== undefined) return undefined;
    try {
      const { ctx } = await access.requireBookAccess(actor, slug, 'update', { tx });
      if (mediaId === ctx.book.cover_media_id) return undefined; // kept, with its focal point
      const photo = await findMemoryPhoto(tx, ctx.book.id, mediaId);
      return await focalOfStored(store, photo);
    } catch {
      return undefined;
    }
  }

  /** book.updated (the Book as its owner reads it) in the change's transaction; answers the Book as `role` reads it. */
  async function bookUpdated(tx: Tx, row: BookRow, role: Parameters<typeof toBook>[1]) {
    const cover = await coverOf(tx, store, row);
    await recordEvent(tx, 'book.updated', row.id, toBook(row, 'owner', cover));
    return toBook(row, role, cover);
  }

  /**
   * PATCH's cover fields, in `tx` under the book's lock: cover_media_id null
   * returns to the automatic choice; an id chooses a photo of one of the
   * book's memories (memoryPhotoForCover), focused on cover_focal_point or its
   * detected subject; cover_focal_point alone moves the present cover's focus
   * (400 validation_failed, reason no_cover, without one). A replaced uploaded
   * cover is removed with its bytes.
   */
  async function changeCover(tx: Tx, book: BookRow, mediaId: string | null | undefined, focal: FocalPoint | undefined, subject?: FocalPoint) {
    let next: { mediaId: string; focal: FocalPoint } | null;
    const noCover = () => errors.validation('cover_focal_point needs a cover: choose one with cover_media_id or upload one first.', { field: 'cover_focal_point', reason: 'no_cover' });
    if (mediaId === null) {
      if (focal !== undefined) throw noCover();
      next = null;
    } else if (mediaId !== undefined) {
      next =
        mediaId === book.cover_media_id && (await findCoverFile(tx, book))
          ? { mediaId, focal: focal ?? { x: book.cover_focal_x ?? 0.5, y: book.cover_focal_y ?? 0.5 } }
          : await memoryPhotoForCover(tx, store, book, mediaId, focal ?? subject);
    } else {
      const file = await findCoverFile(tx, book);
      if (!file) throw noCover();
      next = { mediaId: file.media_id, focal: focal! };
    }
    await setCoverColumns(tx, book.id, next);
    await deleteObjectsLater(tx, [await dropUploadedCover(tx, book.id, book.cover_media_id, next?.mediaId)]);
    const same = next?.mediaId === (book.cover_media_id ?? undefined) && next?.focal.x === book.cover_focal_x && next?.focal.y === book.cover_focal_y;
    if (!same && (next || book.cover_media_id)) await coverChanged(tx, book.id, book.cover_media_id, next?.mediaId ?? null);
  }

  return {
    /**
     * Creates a book owned by the actor, in `tx`. A non-default plan consumes
     * one held slot in the same transaction; with none free the answer is 402
     * with the checkout hint, and the caller's transaction must roll back.
     */
    async createBook(tx: Tx, actor: Actor, input: BookInput & { title: string; plan?: string }) {
      assertBookValues(input);
      // The default plan (most creates) is resolved by the insert itself: one statement in all.
      const plan = input.plan === undefined ? null : await findNamedPlan(tx, input.plan);
      if (plan && !plan.is_default) await consumeSlot(tx, actor.id, plan.slug, config);
      // A slug another book holds (or takes concurrently) is skipped without an error, so the transaction stays usable.
      const book = await insertBook(tx, {
        id: uuidv7(),
        slugs: slugCandidates(input.title),
        ownerId: actor.id,
        title: input.title.trim(),
        subtitle: input.subtitle ?? '',
        theme: input.theme ?? DEFAULT_THEME,
        settings: input.settings ?? {},
        useCaseSlug: input.use_case_slug ?? null,
        isPublic: input.is_public ?? false,
        planSlug: plan?.slug ?? null,
        billingRecordId: uuidv7(),
      });
      if (!book) throw errors.conflict('Could not find a free slug for this title; try a slightly different title.');
      let created = toBook(book, 'owner', null);
      if (plan && !plan.is_default && (await deps.onPaidBookCreated?.(tx, { id: book.id, ownerId: actor.id, planSlug: plan.slug }))) {
        // Its billing changed the row (updated_at, so the etag): answer it as it is now.
        created = toBook((await findBookForUpdate(tx, book.id)) ?? book, 'owner', null);
      }
      await recordEvent(tx, 'book.created', book.id, created);
      return created;
    },

    /**
     * The actor's books where they are owner or admin, in their books_sort (or
     * sync order with updatedSince). Items are each book's JSON text, made by
     * the database (see jsonPage).
     */
    async listBooks(actor: Actor & { books_sort: BooksSort }, query: ListQuery & { status: 'active' | 'archived' }) {
      const list = `books:${actor.id}:${query.status}`;
      const ordering = BOOK_ORDERINGS[actor.books_sort];
      const where = [`m.user_id = $1`, `m.role IN ('owner', 'admin')`, `m.book_live`, `m.book_status = $2`];
      const params: unknown[] = [actor.id, query.status];
      // The activity order's page is bounded on the memberships first (see selectBookPageOfMember).
      const head: ActivityHead | undefined = ordering === BOOK_ORDERINGS.activity && !query.updatedSince ? { where: [...where] } : undefined;
      if (head && query.cursor) {
        // The cursor's row comparison spans two tables (the bucket on the membership, the time on
        // the book), so Postgres cannot start the index scan from it: its bucket bounds the scan.
        const [bucket] = cursors.decode(`${list}|${ordering.name}`, query.cursor);
        params.push(bucket);
        const floor = `$${params.length}::integer`;
        where.push(`m.book_activity_bucket <= ${floor}`);
        head.where.push(`m.book_activity_bucket < ${floor}`);
      }
      const { page, watermark } = await paginate<BookPageRow>(db, cursors, query, {
        list,
        ordering,
        sync: BOOK_ORDERINGS.sync.keys,
        where,
        params,
        select: (o) => selectBookPageOfMember(db, o, head),
      });
      // The covers of the page in one query, each signed (a URL the database cannot make).
      const covers = await findCoverFiles(db, page.items);
      // Most books have no cover: theirs is made at once, only a cover's signing waits (a promise per book is measurable CPU here).
      const made = page.items.map((b) => {
        const file = b.cover_media_id ? covers.get(b.cover_media_id) : undefined;
        return file ? coverView(store, b, file).then((cover) => bookJson(b, cover)) : bookJson(b, null);
      });
      const items = covers.size ? await Promise.all(made) : (made as string[]);
      return { page: { ...page, items }, watermark };
    },

    async getBook(actor: Actor, slug: string) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'view');
      return present(db, ctx.book, ctx.role);
    },

    /** Applies a partial update under an optional If-Match, in `tx`, atomically with the check. */
    async updateBook(tx: Tx, actor: Actor, slug: string, patch: BookInput, ifMatch: string | undefined) {
      const subject = await subjectBeforeLock(tx, actor, slug, patch.cover_media_id, patch.cover_focal_point);
      const { ctx } = await access.requireBookAccess(actor, slug, 'update', {
        tx,
        lock: 'update',
        ifMatch,
        target: async (c) => ({ value: c.book, etag: etagOf(c.book.updated_at) }),
      });
      assertBookValues(patch); // the route's own rules come after the precondition and the gates
      const { cover_media_id: coverMediaId, cover_focal_point: focal, ...fields } = patch;
      if (coverMediaId !== undefined || focal !== undefined) await changeCover(tx, ctx.book, coverMediaId, focal, subject);
      const clean = { ...fields, ...(fields.title !== undefined ? { title: fields.title.trim() } : {}) };
      const updated = await updateBookFields(tx, ctx.book.id, clean);
      return bookUpdated(tx, updated, ctx.role);
    },

    /** Reads a staged cover upload (size, subject, scan) before its transaction: see examineCoverUpload. */
    examineCover(staged: { key: string }): Promise<CoverFindings> {
      return examineCoverUpload(store, staged.key, scanner);
    },

    /**
     * PUT /books/{slug}/cover/, in `tx`: records the staged, examined upload as
     * the book's cover (a media row of no memory, counted in the book's
     * storage, checked again under the lock), focused on its detected subject;
     * a previously uploaded cover goes with its bytes. book.updated.
     */
    async putCover(
      tx: Tx,
      actor: Actor,
      slug: string,
      staged: { mediaId: string; key: string; mimeType: string; declaredType: string | null; filename: string | null; sizeBytes: number; sha256: string },
      findings: CoverFindings,
    ) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'update', { tx, lock: 'update' });
      const limit = Number(ctx.planLimits.storage_bytes_per_book);
      const used = Number(ctx.book.storage_used_bytes);
      if (used + staged.sizeBytes > limit) throw overStorage(ctx.book.plan_slug, limit, used);
      await insertCoverMedia(
        tx,
        { id: staged.mediaId, bookId: ctx.book.id, uploadedBy: actor.id, mimeType: staged.mimeType, declaredMimeType: staged.declaredType, filename: staged.filename, sizeBytes: staged.sizeBytes, sha256: staged.sha256, key: staged.key },
        findings,
      );
      await addStorageUsed(tx, ctx.book.id, staged.sizeBytes);
      // The row takes the object over. Gone already means the sweep removed it (an upload that outlived every timeout).
      if (!(await takePendingObject(tx, staged.key))) throw errors.requestTimeout('The upload took too long and was discarded; send it again.', null, { transient: true });
      await setCoverColumns(tx, ctx.book.id, { mediaId: staged.mediaId, focal: findings.focal });
      await deleteObjectsLater(tx, [await dropUploadedCover(tx, ctx.book.id, ctx.book.cover_media_id, staged.mediaId)]);
      await coverChanged(tx, ctx.book.id, ctx.book.cover_media_id, staged.mediaId);
      return bookUpdated(tx, (await findBookForUpdate(tx, ctx.book.id))!, ctx.role);
    },

    /** DELETE /books/{slug}/cover/, in `tx`: back to the automatic choice (an uploaded cover goes with its bytes); book.updated. Without a cover: the book as it is. */
    async deleteCover(tx: Tx, actor: Actor, slug: string) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'update', { tx, lock: 'update' });
      if (!ctx.book.cover_media_id) return present(tx, ctx.book, ctx.role);
      await changeCover(tx, ctx.book, null, undefined);
      return bookUpdated(tx, (await findBookForUpdate(tx, ctx.book.id))!, ctx.role);
    },

    /** Archive or restore, in `tx`; moving to the status already held is a no-op that answers the book. */
    async setStatus(tx: Tx, actor: Actor, slug: string, status: 'active' | 'archived') {
      const { ctx } = await access.requireBookAccess(actor, slug, status === 'archived' ? 'archive' : 'restore', { tx, lock: 'update' });
      const moved = await setBookStatus(tx, ctx.book.id, status);
      const cover = await coverOf(tx, store, moved ?? ctx.book);
      if (moved) await recordEvent(tx, status === 'archived' ? 'book.archived' : 'book.restored', ctx.book.id, toBook(moved, 'owner', cover));
      return { book: toBook(moved ?? ctx.book, ctx.role, cover), changed: moved !== undefined };
    },

    /**
     * Deletion's first phase (owner only, allowed in a grace period): asks the
     * operator's endpoint to erase the book's off-site backups, holding no
     * transaction while it waits (up to 5 s). Erasure may be asked again at
     * no harm, so a retry after a crash simply asks again. Then `deleteBook`.
     */
    async eraseBookBackups(actor: Actor, slug: string): Promise<BackupErasure> {
      const { ctx } = await access.requireBookAccess(actor, slug, 'delete');
      return deletion.eraseBackups(ctx.book.id);
    },

    /**
     * Deletion's second phase, in `tx`: with the backups erased the book is
     * gone (404) and its purge queued; otherwise the deletion is recorded as
     * requested and erasure retried in the background. See BookDeletion.
     */
    async deleteBook(tx: Tx, actor: Actor, slug: string, erasure: BackupErasure) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'delete', { tx, lock: 'update' });
      return deletion.recordDeletion(tx, ctx.book.id, erasure);
    },

    /** The permissions view: any caller who can see the book; derived from the same table the guard enforces. */
    async getPermissions(actor: Actor, slug: string) {
      const ctx = await access.checkVisibleAndRole(actor, slug, 'visible');
      const features = Object.fromEntries(PLAN_FEATURES.filter((f) => f.startsWith('feature_')).map((f) => [f, ctx.planFeatures[f] === true]));
      return { book_slug: ctx.book.slug, role: ctx.role, ...features, actions: ctx.role ? allowedActions(accessState(ctx)) : [] };
    },
  };
}
export type BookService = ReturnType<typeof createBookService>;

async function consumeSlot(tx: Queryable, userId: string, planSlug: string, config: Config) {
  if (!(await takeBookSlot(tx, userId, planSlug))) {
    throw errors.paymentRequired(`No free ${planSlug} book slot; buy one at the checkout URL, then retry.`, {
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
  await insertBillingRecord(q, { id: uuidv7(), bookId, planSlug, status, graceEndsAt });
}

export type { BookRow };
