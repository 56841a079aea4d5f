import type { Queryable } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { PlanRow } from './plan-types.js';

const COLUMNS = `slug, name, is_default, sort_order, price_amount_cents, price_currency, price_interval, features,
  max_members_per_book, max_video_bytes, storage_bytes_per_book, max_approved_submissions_per_book, channels`;

export function listPlans(q: Queryable) {
  return q.query<PlanRow>(`SELECT ${COLUMNS} FROM plans ORDER BY sort_order, slug`);
}

export function findPlan(q: Queryable, slug: string) {
  return one<PlanRow>(q, `SELECT ${COLUMNS} FROM plans WHERE slug = $1`, [slug]);
}

export function findDefaultPlan(q: Queryable) {
  return one<PlanRow>(q, `SELECT ${COLUMNS} FROM plans WHERE is_default`) as Promise<PlanRow>;
}

/** The channels a plan allows (undefined: no such plan). */
export function findPlanChannels(q: Queryable, slug: string) {
  return one<{ channels: string[] }>(q, `SELECT channels FROM plans WHERE slug = $1`, [slug]);
}
