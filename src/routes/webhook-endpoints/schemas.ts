import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { Etag, Id, ListEnvelope, Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { isUuid } from '../../lib/ids.js';
import { EVENT_TYPES } from '../../services/events/event-types.js';

export const EndpointParams = Type.Object({ id: Type.String({ maxLength: 200, description: 'Webhook endpoint id (opaque)' }) });

/** onRequest of the /webhook_endpoints/{id}/ routes: an id not shaped like ours names nothing (404). */
export async function endpointIdMustBeWellFormed(request: FastifyRequest) {
  if (!isUuid((request.params as { id?: string }).id)) throw errors.notFound('webhook endpoint');
}

/** onRequest of the /webhook_endpoints/{id}/deliveries/{delivery_id}/ routes: either id not shaped like ours names nothing (404). */
export async function deliveryIdMustBeWellFormed(request: FastifyRequest) {
  await endpointIdMustBeWellFormed(request);
  if (!isUuid((request.params as { delivery_id?: string }).delivery_id)) throw errors.notFound('webhook delivery');
}

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'https, resolving only to public addresses (checked now and at every delivery); plain http and private addresses only within WEBHOOK_ALLOW_PRIVATE. Refused: 400 validation_failed with details.reason',
  examples: ['https://example.com/hooks/memorybook'],
});
const EventTypes = Nullable(
  Type.Array(StringEnum(EVENT_TYPES), { minItems: 1, maxItems: EVENT_TYPES.length * 2, description: 'The event types sent; null (the default): every type' }),
);
const BookSlugs = Nullable(
  Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    minItems: 1,
    maxItems: 500,
    description: "Only events of these books (each one you own or administer); null (the default): every book you own or administer when the event happens",
  }),
);
const Description = Type.String({ maxLength: 500, description: 'Your note' });

const endpointProperties = {
  id: Id,
  url: Type.String(),
  description: Type.String(),
  event_types: EventTypes,
  book_slugs: BookSlugs,
  status: StringEnum(['enabled', 'disabled'] as const, { description: 'Deliveries are made to enabled endpoints only' }),
  disabled_reason: Nullable(
    StringEnum(['failing', 'gone', 'manual'] as const, {
      description: 'failing: every retry failed (about 28 h); gone: the receiver answered 410; manual: set disabled by PATCH. null while enabled',
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  etag: Etag,
};

export const WebhookEndpoint = Type.Object(endpointProperties, {
  $id: 'WebhookEndpoint',
  title: 'WebhookEndpoint',
  description: 'Where your events are sent, signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)',
});

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...endpointProperties,
    secret: Type.Union([Type.String(), Type.Null()], {
      description:
        'The signing secret, whsec_ + base64 of 32 bytes: shown only in this answer. Never stored in the clear: a replay of the request (same Idempotency-Key) answers null',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
  },
  { title: 'WebhookEndpointWithSecret', description: 'The endpoint, with its signing secret (shown in this answer only)' },
);

export const CreateEndpointBody = StrictObject(
  {
    url: Url,
    description: Type.Optional(Description),
    event_types: Type.Optional(EventTypes),
    book_slugs: Type.Optional(BookSlugs),
  },
  { examples: [{ url: 'https://example.com/hooks/memorybook', event_types: ['submission.created', 'export.completed'] }] },
);

export const UpdateEndpointBody = StrictObject({
  url: Type.Optional(Url),
  description: Type.Optional(Description),
  event_types: Type.Optional(EventTypes),
  book_slugs: Type.Optional(BookSlugs),
  status: Type.Optional(StringEnum(['enabled', 'disabled'] as const, { description: 'enabled again clears disabled_reason' })),
});

export const EndpointList = ListEnvelope(Type.Ref('WebhookEndpoint'), 'WebhookEndpointList');

export const DeliveryParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'Webhook endpoint id (opaque)' }),
  delivery_id: Type.String({ maxLength: 200, description: "The delivery's id (delivery_id in the delivery log)" }),
});

export const DeliveryAttempt = Type.Object(
  {
    id: Id,
    delivery_id: Type.String({ description: 'The delivery this attempt belongs to (one event to this endpoint): POST …/deliveries/{delivery_id}/retry/ sends it again' }),
    event_id: Id,
    event_type: Nullable(StringEnum([...EVENT_TYPES, 'ping'] as const, { description: "The event's type (null only for attempts logged before this field existed)" })),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first try of this event to this endpoint' }),
    status_code: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came (timeout, refused address, connection error)" })),
    duration_ms: Type.Integer(),
    error: Nullable(Type.String({ description: 'Why the attempt failed; null when delivered' })),
    next_retry_at: Nullable(Type.String({ ...Timestamp, description: 'When the next attempt is due; null when none follows' })),
    response_excerpt: Nullable(
      Type.String({ description: "The first kilobyte of the receiver's answer body (UTF-8, cut at 1,024 bytes); null when no answer came" }),
    ),
    created_at: Timestamp,
  },
  { title: 'WebhookDeliveryAttempt' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Id,
    event_id: Id,
    event_type: StringEnum([...EVENT_TYPES, 'ping'] as const),
    status: StringEnum(['pending', 'delivered', 'failed'] as const, { description: 'pending: to be sent (or being sent); delivered: a 2xx came; failed: no retry left' }),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts made so far' }),
    next_attempt_at: Nullable(Type.String({ ...Timestamp, description: 'When it is sent next (now after a redelivery); null unless pending' })),
    created_at: Timestamp,
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery', description: 'One event to one endpoint: sent until a 2xx comes or its retries run out' },
);
export const DeliveryList = ListEnvelope(DeliveryAttempt, 'WebhookDeliveryAttemptList');
