import type { Db } from '../../db/client.js';
import { errors } from '../../errors.js';
import { findPlan } from '../plans/plan-repository.js';

/**
 * A user's quotas: storage across the books they own (each book brings its
 * plan's allowance) and the book slots held per non-default plan.
 */
export function createQuotaService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async getQuotas(userId: string) {
      const [storage] = await db.query<{ used: number; limit: number }>(
        `SELECT COALESCE(sum(b.storage_used_bytes), 0)::bigint AS used, COALESCE(sum(p.storage_bytes_per_book), 0)::bigint AS limit
         FROM books b JOIN plans p ON p.slug = b.plan_slug
         WHERE b.owner_id = $1 AND b.deleted_at IS NULL`,
        [userId],
      );
      const slots = await db.query<{ plan: string; purchased: number; used: number }>(
        `SELECT p.slug AS plan, COALESCE(s.purchased, 0) AS purchased, COALESCE(s.used, 0) AS used
         FROM plans p LEFT JOIN book_slots s ON s.plan_slug = p.slug AND s.user_id = $1
         WHERE NOT p.is_default ORDER BY p.sort_order, p.slug`,
        [userId],
      );
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
      const [row] = await db.query<{ purchased: number; used: number }>(
        `INSERT INTO book_slots (user_id, plan_slug, purchased) VALUES ($1, $2, $3)
         ON CONFLICT (user_id, plan_slug) DO UPDATE SET purchased = book_slots.purchased + EXCLUDED.purchased
         RETURNING purchased, used`,
        [userId, planSlug, count],
      );
      return { plan: planSlug, purchased: row.purchased, used: row.used, available: row.purchased - row.used };
    },
  };
}
