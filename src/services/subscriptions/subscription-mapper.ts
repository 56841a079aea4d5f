import type { SubscriptionRow } from './subscription-types.js';

export function toSubscription(s: SubscriptionRow) {
  return {
    id: s.id,
    user_id: s.user_id,
    channel: s.channel,
    kind: s.kind,
    is_active: s.is_active,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}
export type Subscription = ReturnType<typeof toSubscription>;
