import { etagOf } from '../../lib/etag.js';
import type { AttemptRow, DeliveryRow, EndpointRow } from './endpoint-repository.js';

/** The WebhookEndpoint response: never its secret (shown once, by create and rotate_secret). */
export function toEndpoint(r: EndpointRow) {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    event_types: r.event_types,
    book_slugs: r.book_slugs,
    status: r.status,
    disabled_reason: r.disabled_reason,
    created_at: r.created_at,
    updated_at: r.updated_at,
    etag: etagOf(r.updated_at),
  };
}
export type WebhookEndpoint = ReturnType<typeof toEndpoint>;

export function toAttempt(r: AttemptRow) {
  return {
    id: r.id,
    delivery_id: r.delivery_id,
    event_id: r.event_id,
    event_type: r.event_type,
    attempt: r.attempt,
    status_code: r.status_code,
    duration_ms: r.duration_ms,
    error: r.error,
    next_retry_at: r.next_retry_at,
    response_excerpt: r.response_excerpt,
    created_at: r.created_at,
  };
}

export function toDelivery(r: DeliveryRow) {
  return {
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null,
    created_at: r.created_at,
  };
}
