import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { Id, ListEnvelope, ListQuery, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { isUuid } from '../../lib/ids.js';
import { SUBSCRIPTION_CHANNELS, SUBSCRIPTION_KINDS } from '../../services/subscriptions/subscription-types.js';

export const SubscriptionParams = Type.Object({
  slug: Type.String({ maxLength: 200, description: 'Book slug' }),
  id: Type.String({ maxLength: 200, description: 'Subscription id (opaque)' }),
});

/** onRequest hook of /subscriptions/{id}/: a malformed id names nothing (404), before the Idempotency-Key is claimed. */
export async function subscriptionIdMustBeWellFormed(request: FastifyRequest) {
  if (!isUuid((request.params as { id?: string }).id)) throw errors.notFound('subscription');
}

const subscriptionFields = {
  id: Id,
  user_id: Id,
  channel: StringEnum(SUBSCRIPTION_CHANNELS, { description: 'How the subscriber is told' }),
  kind: StringEnum(SUBSCRIPTION_KINDS, { description: 'new_submission: each new memory as it arrives; digest: one summary a day' }),
  is_active: Type.Boolean({ description: 'False once cancelled; inactive rows stay listed' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

const example = {
  id: '01935f52-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
  user_id: '01935f4d-0b6e-7f3a-8c1d-3e2a9b7c6d5e',
  channel: 'email',
  kind: 'new_submission',
  is_active: true,
  created_at: '2026-11-21T10:00:00.123456Z',
  updated_at: '2026-11-21T10:00:00.123456Z',
};

export const Subscription = Type.Object(subscriptionFields, {
  $id: 'Subscription',
  title: 'Subscription',
  description: "A member's notification subscription to a book: what they hear about, and over which channel",
  examples: [example],
});

export const CancelledSubscription = Type.Object(
  { ...subscriptionFields, already_inactive: Type.Boolean({ description: 'True when the subscription was inactive before this call' }) },
  {
    title: 'CancelledSubscription',
    description: 'The subscription, now inactive',
    examples: [{ ...example, is_active: false, updated_at: '2026-11-22T09:00:00.000000Z', already_inactive: false }],
  },
);

export const SubscriptionList = ListEnvelope(Type.Ref('Subscription'), 'SubscriptionList', 'One page of notification subscriptions');
export const ListSubscriptionsQuery = ListQuery;
