import type { ObjectStore } from '../../storage/object-store.js';
import type { Db } from '../../db/client.js';
import { errors } from '../../errors.js';
import { recordBookUpdated } from '../events/event-objects.js';
import { toPlan } from '../plans/plan-mapper.js';
import { findPlan } from '../plans/plan-service.js';
import { countBookMembers, findLatestBillingRecord, setBillingStatusBySlug, setPlanBySlug } from './book-repository.js';
import type { Actor, BookAccess } from './book-access.js';
import { appendBillingRecord } from './book-service.js';

/**
 * Billing reads and the billing events the operator CLI stands in for. The
 * book row keeps the current billing state (what the guard reads); every
 * change also appends a billing record (what GET …/billing/ shows).
 */
export function createBillingService(deps: { db: Db; access: BookAccess; store: ObjectStore; manageUrl: string }) {
  const { db, access, manageUrl } = deps;
  return {
    /** The owner's view of the book's billing: the latest record with its plan and a quota snapshot. */
    async getBilling(actor: Actor, slug: string) {
      const { book } = (await access.requireBookAccess(actor, slug, 'read_billing')).ctx;
      const record = await findLatestBillingRecord(db, book.id);
      if (!record) throw errors.notFound('billing record');
      const plan = (await findPlan(db, record.plan_slug))!;
      const n = await countBookMembers(db, book.id);
      return {
        book_slug: book.slug,
        plan: toPlan(plan),
        status: record.status,
        period_start: record.period_start,
        period_end: record.period_end,
        grace_period_ends_at: record.grace_period_ends_at,
        cancel_at_period_end: record.cancel_at_period_end,
        quota: {
          members_used: n,
          members_limit: plan.max_members_per_book,
          storage_used_bytes: book.storage_used_bytes,
          storage_limit_bytes: plan.storage_bytes_per_book,
        },
        manage_url: manageUrl,
      };
    },

    /** Puts a book into its grace period until a time (or open-ended), or ends it. */
    async setGracePeriod(slug: string, until: string | null | 'off') {
      return db.transaction(async (tx) => {
        const book = await setBillingStatusBySlug(tx, slug, until === 'off' ? 'active' : 'grace_period', until === 'off' ? null : until);
        if (!book) throw errors.notFound('book');
        await appendBillingRecord(tx, book.id, book.plan_slug, until === 'off' ? 'active' : 'grace_period', until === 'off' ? null : until);
        await recordBookUpdated(tx, deps.store, book.id);
        return { slug, billing_status: until === 'off' ? 'active' : 'grace_period', grace_period_ends_at: until === 'off' ? null : until };
      });
    },

    async setPlan(slug: string, planSlug: string) {
      const plan = await findPlan(db, planSlug);
      if (!plan) throw errors.validation(`Unknown plan "${planSlug}".`);
      return db.transaction(async (tx) => {
        const book = await setPlanBySlug(tx, slug, planSlug);
        if (!book) throw errors.notFound('book');
        await appendBillingRecord(tx, book.id, planSlug, book.billing_status, book.grace_period_ends_at);
        await recordBookUpdated(tx, deps.store, book.id);
        return { slug, plan: planSlug };
      });
    },
  };
}
export type BillingService = ReturnType<typeof createBillingService>;
