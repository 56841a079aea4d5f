import type { Db } from '../../db/client.js';
import { errors } from '../../errors.js';
import { findPlan } from '../plans/plan-service.js';
import { grantBookSlots, listBookSlots, sumOwnedStorage } from './book-repository.js';

/**
 * A user's quotas: storage across the books they own (each book brings its
 * plan's allowance) and the book slots held per non-default plan.
 */
export function createQuotaService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async getQuotas(userId: string) {
      const storage = await sumOwnedStorage(db, userId);
      const slots = await listBookSlots(db, userId);
      return {
        storage: { used_bytes: storage.used, limit_bytes: storage.limit },
        book_slots: slots.map((s) => ({ plan: s.plan, purchased: s.purchased, used: s.used, available: s.purchased - s.used })),
      };
    },

    /** Adds purchased slots (the web checkout's effect; `memorybook slots grant` stands in for it). */
    async grantSlots(userId: string, planSlug: string, count: number) {
      const plan = await findPlan(db, planSlug);
      if (!plan) throw errors.validation(`Unknown plan "${planSlug}".`);
      if (plan.is_default) throw errors.validation(`The default plan "${planSlug}" needs no slots.`);
      const row = await grantBookSlots(db, userId, planSlug, count);
      return { plan: planSlug, purchased: row.purchased, used: row.used, available: row.purchased - row.used };
    },
  };
}
