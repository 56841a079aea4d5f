import type { Db } from '../../db/client.js';
import { createdDesc, paginate, updatedAsc, type CursorCodec, type ListQuery, type SortKey } from '../../db/pagination.js';
import type { Actor } from '../books/book-access.js';
import type { MediaViews } from '../media/media-views.js';
import { submissionJson } from '../submissions/submission-mapper.js';
import type { SubmissionStatus } from '../submissions/submission-types.js';
import { toSubscription } from '../subscriptions/subscription-mapper.js';
import { selectMembershipPage, selectMySubmissionPage, selectMySubscriptionPage, stillMember, type MembershipRow, type MySubmissionRow, type MySubscriptionRow } from './me-lists-repository.js';

/**
 * The caller's own things across books (GET /me/memberships/,
 * /me/submissions/, /me/subscriptions/): any signed-in user, any role, and
 * only ever rows whose user is the caller. A book counts while the caller is
 * still one of its members and it is not deleted (archived books stay):
 * a book they left, or one deleted, shows nothing of it any more, like every
 * per-book route answers 404 for it. Each ordering reads one index of the
 * caller's id (migration 0031), as the per-book lists do.
 */

/** Newest joined first; with updated_since, the oldest change of the membership or of its book (title, status) first. */
const MEMBERSHIP_ORDERINGS: { joined: SortKey[]; sync: SortKey[] } = {
  joined: [
    { sql: 'm.joined_at', dir: 'desc', field: 'joined_at', cast: 'timestamptz' },
    { sql: 'm.book_id', dir: 'desc', field: 'book_id', cast: 'uuid' },
  ],
  sync: [
    { sql: 'GREATEST(m.book_updated_at, m.updated_at)', dir: 'asc', field: 'changed_at', cast: 'timestamptz' },
    { sql: 'm.book_id', dir: 'asc', field: 'book_id', cast: 'uuid' },
  ],
};
const SUBMISSION_ORDERINGS = { created: createdDesc('s'), sync: updatedAsc('s') };
const SUBSCRIPTION_ORDERINGS = { created: createdDesc('n'), sync: updatedAsc('n') };


export interface MySubmissionsFilter {
  book?: string;
  status?: SubmissionStatus;
}

export function createMeListsService(deps: { db: Db; cursors: CursorCodec; views: MediaViews }) {
  const { db, cursors, views } = deps;

  return {
    /** GET /me/memberships/: `{book: {slug, title, status}, role, joined_at}` of every live book the caller belongs to. */
    async listMemberships(actor: Actor, query: ListQuery) {
      const { page, watermark } = await paginate<MembershipRow>(db, cursors, query, {
        list: `me-memberships:${actor.id}`,
        ordering: { name: 'joined', keys: MEMBERSHIP_ORDERINGS.joined },
        sync: MEMBERSHIP_ORDERINGS.sync,
        where: [`m.user_id = $1`, `m.book_live`],
        params: [actor.id],
        select: (o) => selectMembershipPage(db, o),
      });
      const items = page.items.map((r) => ({ book: { slug: r.slug, title: r.title, status: r.status }, role: r.role, joined_at: r.joined_at }));
      return { page: { ...page, items }, watermark };
    },

    /**
     * GET /me/submissions/: the caller's own memories (contributor_user is
     * the caller), newest first, each the Submission plus `book: {slug,
     * title}`, as JSON text made by the database around the signed media.
     */
    async listSubmissions(actor: Actor, filter: MySubmissionsFilter, query: ListQuery) {
      const where = [`s.contributor_user_id = $1`, stillMember('s.book_id', '$1')];
      const params: unknown[] = [actor.id];
      if (filter.book !== undefined) {
        params.push(filter.book);
        where.push(`b.slug = $${params.length}`);
      }
      if (filter.status !== undefined) {
        params.push(filter.status);
        where.push(`s.status = $${params.length}`);
      }
      const { page, watermark } = await paginate<MySubmissionRow>(db, cursors, query, {
        // The filters are part of the list a cursor belongs to.
        list: `me-submissions:${actor.id}:${JSON.stringify([filter.book ?? null, filter.status ?? null])}`,
        ordering: { name: 'created', keys: SUBMISSION_ORDERINGS.created },
        sync: SUBMISSION_ORDERINGS.sync,
        where,
        params,
        select: (o) => selectMySubmissionPage(db, o),
      });
      const media = await views.summariesFor(
        db,
        page.items.map((r) => r.row_id),
      );
      const withCard = page.items.filter((r) => r.share_card_key);
      const cards = new Map(withCard.length ? await Promise.all(withCard.map(async (r) => [r.row_id, await views.shareCardUrl(r.share_card_key)] as const)) : []);
      const items = page.items.map((r) => {
        const text = submissionJson(r, cards.get(r.row_id) ?? null, media.get(r.row_id) ?? []);
        // The Submission's members, then the book it is in.
        return `${text.slice(0, -1)},"book":${JSON.stringify({ slug: r.book_slug, title: r.book_title })}}`;
      });
      return { page: { ...page, items }, watermark };
    },

    /** GET /me/subscriptions/: the caller's notification subscriptions (active and inactive), each with its book. */
    async listSubscriptions(actor: Actor, query: ListQuery) {
      const { page, watermark } = await paginate<MySubscriptionRow>(db, cursors, query, {
        list: `me-subscriptions:${actor.id}`,
        ordering: { name: 'created', keys: SUBSCRIPTION_ORDERINGS.created },
        sync: SUBSCRIPTION_ORDERINGS.sync,
        where: [`n.user_id = $1`, stillMember('n.book_id', '$1')],
        params: [actor.id],
        select: (o) => selectMySubscriptionPage(db, o),
      });
      const items = page.items.map((r) => ({ ...toSubscription(r), book: { slug: r.book_slug, title: r.book_title } }));
      return { page: { ...page, items }, watermark };
    },
  };
}
export type MeListsService = ReturnType<typeof createMeListsService>;
