import { PLAN_FEATURES, type PlanRow } from './plan-types.js';

export function toPlan(p: PlanRow) {
  return {
    slug: p.slug,
    name: p.name,
    is_default: p.is_default,
    price:
      p.price_amount_cents === null
        ? null
        : { amount_cents: p.price_amount_cents, currency: p.price_currency ?? 'usd', interval: p.price_interval ?? 'one_time' },
    features: Object.fromEntries(PLAN_FEATURES.map((f) => [f, p.features[f] === true])) as Record<(typeof PLAN_FEATURES)[number], boolean>,
    max_members_per_book: p.max_members_per_book,
    max_video_bytes: p.max_video_bytes,
    storage_bytes_per_book: p.storage_bytes_per_book,
    max_approved_submissions_per_book: p.max_approved_submissions_per_book,
    channels: p.channels,
  };
}
