export const SUBSCRIPTION_CHANNELS = ['email', 'sms', 'telegram', 'whatsapp', 'push'] as const;
export type SubscriptionChannel = (typeof SUBSCRIPTION_CHANNELS)[number];

/** new_submission: each new memory as it arrives; digest: one summary a day of the day before. */
export const SUBSCRIPTION_KINDS = ['new_submission', 'digest'] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

export interface SubscriptionRow {
  id: string;
  user_id: string;
  book_id: string;
  channel: SubscriptionChannel;
  kind: SubscriptionKind;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}
