import type { Db, Queryable, Tx } from '../../db/client.js';
import { createdDesc, paginate, updatedAsc, type CursorCodec, type ListQuery } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import { etagOf } from '../../lib/etag.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import type { BookContext } from '../books/book-types.js';
import { findBookOwner, findMember } from '../members/member-repository.js';
import { findUserByEmail } from '../users/user-repository.js';
import { toSubscription } from './subscription-mapper.js';
import {
  deactivateSubscription,
  findActiveSubscription,
  findSubscription,
  insertSubscription,
  selectSubscriptionsOfBook,
} from './subscription-repository.js';
import type { SubscriptionChannel, SubscriptionKind, SubscriptionRow } from './subscription-types.js';

/** GET …/notifications/subscriptions/ orderings: newest first, or oldest change first when syncing with updated_since. */
export const SUBSCRIPTION_ORDERINGS = { created: createdDesc('n'), sync: updatedAsc('n') };

/**
 * The subscription a route names, of this book. Owners and admins act on
 * any; a contributor only on their own: the book is visible to them, so
 * another's is 403 insufficient_role (the contract's carve-out), not 404.
 */
function subscriptionTarget(actor: Actor, id: string, forUpdate: boolean) {
  return async (ctx: BookContext, q: Queryable) => {
    if (!isUuid(id)) throw errors.notFound('subscription');
    const row = await findSubscription(q, ctx.book.id, id, { forUpdate });
    if (!row) throw errors.notFound('subscription');
    if (ctx.role === 'contributor' && row.user_id !== actor.id) throw errors.insufficientRole('owner or admin');
    return { value: row, etag: etagOf(row.updated_at) };
  };
}

/**
 * Notification subscriptions of a book: listed by owners and admins,
 * cancelled by them or by the subscriber, created by the operator (the API
 * has no create: creation needs an out-of-band verification).
 */
export function createSubscriptionService(deps: { db: Db; cursors: CursorCodec; access: BookAccess }) {
  const { db, cursors, access } = deps;

  return {
    /** Owners and admins: every subscription of the book, active and inactive. */
    async listSubscriptions(actor: Actor, slug: string, query: ListQuery) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'list_subscriptions');
      const { page, watermark } = await paginate<SubscriptionRow & Record<string, unknown>>(db, cursors, query, {
        list: `subscriptions:${ctx.book.id}`,
        ordering: { name: 'created', keys: SUBSCRIPTION_ORDERINGS.created },
        sync: SUBSCRIPTION_ORDERINGS.sync,
        where: [`n.book_id = $1`],
        params: [ctx.book.id],
        select: (o) => selectSubscriptionsOfBook(db, o) as Promise<(SubscriptionRow & Record<string, unknown>)[]>,
      });
      return { page: { ...page, items: page.items.map(toSubscription) }, watermark };
    },

    /**
     * The early check of DELETE …/subscriptions/{id}/ (before the
     * Idempotency-Key is claimed, as the contract orders role checks): a
     * contributor naming another member's subscription is 403 here. A
     * malformed or unknown id is left to the service (404).
     */
    async assertMayCancel(actor: Actor, slug: string, id: string): Promise<void> {
      const ctx = await access.checkVisibleAndRole(actor, slug, 'cancel_own_subscription');
      if (ctx.role !== 'contributor' || !isUuid(id)) return;
      const row = await findSubscription(db, ctx.book.id, id);
      if (row && row.user_id !== actor.id) throw errors.insufficientRole('owner or admin');
    },

    /**
     * Makes the subscription inactive; the row stays and is still listed. A
     * repeat answers the inactive row with already_inactive true.
     */
    async cancelSubscription(tx: Tx, actor: Actor, slug: string, id: string) {
      const { ctx, target } = await access.requireBookAccess(actor, slug, 'cancel_own_subscription', { tx, target: subscriptionTarget(actor, id, true) });
      if (!target.is_active) return { ...toSubscription(target), already_inactive: true };
      return { ...toSubscription(await deactivateSubscription(tx, ctx.book.id, id)), already_inactive: false };
    },

    /**
     * The operator CLI (`memorybook subscription create`): subscribes a
     * member of the book, acting as the book's owner so the book's own gates
     * hold. The channel needs its address on the account (a phone number for
     * sms, a Telegram chat the bot knows for telegram): 400 validation_failed
     * otherwise. An equal active subscription is answered as it is
     * (created: false), never duplicated.
     */
    async createSubscription(input: { slug: string; email: string; kind: SubscriptionKind; channel?: SubscriptionChannel }) {
      const channel = input.channel ?? 'email';
      return db.transaction(async (tx) => {
        const owner = await findBookOwner(tx, input.slug);
        if (!owner) throw errors.notFound('book');
        const { ctx } = await access.requireBookAccess(owner, input.slug, 'view', { tx, lock: 'share' });
        const user = await findUserByEmail(tx, input.email);
        if (!user) throw errors.userNotFound(`No user has the email ${input.email}.`);
        if (!(await findMember(tx, ctx.book.id, user.id))) {
          throw errors.validation(`${user.email} is not a member of the book "${ctx.book.slug}"; add them first.`, { email: user.email });
        }
        if ((channel === 'sms' || channel === 'whatsapp') && !user.phone_number) throw errors.validation(`${user.email} has no phone number for ${channel === 'sms' ? 'SMS' : 'WhatsApp'}.`, { channel });
        if (channel === 'telegram' && !user.telegram_chat_id) {
          throw errors.validation(`${user.email} has no Telegram chat with the bot yet; they must write to it first.`, { channel });
        }
        if (channel === 'push') {
          const [device] = await tx.query(`SELECT 1 FROM devices WHERE user_id = $1 LIMIT 1`, [user.id]);
          if (!device) throw errors.validation(`${user.email} has no device registered for push (POST /me/devices/ from their app or browser).`, { channel });
        }
        const fields = { bookId: ctx.book.id, userId: user.id, channel, kind: input.kind };
        const inserted = await insertSubscription(tx, { id: uuidv7(), ...fields });
        const row = inserted ?? (await findActiveSubscription(tx, fields))!;
        return { ...toSubscription(row), book_slug: ctx.book.slug, email: user.email, created: inserted !== undefined };
      });
    },
  };
}
export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
