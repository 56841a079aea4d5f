import type { Db, Queryable } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';
import { EVENT_TIME_SQL } from '../events/record-event.js';
import type { AttemptRow, DeliveryRow, EndpointRow } from './endpoint-repository.js';

export type EndpointPart = Pick<EndpointRow, 'user_id' | 'url' | 'status' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at'>;

/** A delivery claimed under a lease, with its endpoint and its event's body. */
export interface ClaimedDelivery extends EndpointPart {
  id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
  retry_base: number;
  event_type: string;
  body: string;
}

/**
 * Claims due deliveries under a lease, each with its endpoint and event
 * body, in one statement: in order within each (endpoint, resource), at
 * most the endpoint's free places each (`probing` endpoints one), none of a
 * `resting` endpoint.
 */
export function claimDeliveries(
  db: Db,
  p: { now: string; limit: number; leaseSeconds: number; resting: string[]; probing: string[]; endpointConcurrency: number },
): Promise<ClaimedDelivery[]> {
  return db.query<ClaimedDelivery>(
    `WITH cand AS (
       SELECT d.id, d.endpoint_id, d.next_attempt_at, d.sequence,
              row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.sequence, d.id) AS rn
       FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz AND (d.lease_until IS NULL OR d.lease_until <= $1::timestamptz)
         AND NOT (d.endpoint_id = ANY ($4::uuid[]))
         AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries o
           WHERE o.endpoint_id = d.endpoint_id AND o.resource_key = d.resource_key AND o.status = 'pending' AND o.id <> d.id
             AND (o.lease_until > $1::timestamptz
                  OR (o.sequence < d.sequence AND (o.attempts = 0 OR o.next_attempt_at <= $1::timestamptz))))),
     busy AS (
       SELECT endpoint_id, count(*) AS n FROM webhook_deliveries
       WHERE status = 'pending' AND lease_until > $1::timestamptz GROUP BY endpoint_id),
     pick AS (
       SELECT cand.id FROM cand LEFT JOIN busy ON busy.endpoint_id = cand.endpoint_id
       WHERE cand.rn + coalesce(busy.n, 0) <= CASE WHEN cand.endpoint_id = ANY ($5::uuid[]) THEN 1 ELSE $6 END
       ORDER BY cand.next_attempt_at, cand.sequence LIMIT $2),
     c AS (
       UPDATE webhook_deliveries d SET lease_until = $1::timestamptz + make_interval(secs => $3), attempts = d.attempts + 1
       WHERE d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE id IN (SELECT id FROM pick) AND status = 'pending' AND (lease_until IS NULL OR lease_until <= $1::timestamptz)
         FOR UPDATE SKIP LOCKED)
       RETURNING d.id, d.event_id, d.endpoint_id, d.attempts, d.retry_base)
     SELECT c.id, c.event_id, c.endpoint_id, c.attempts, c.retry_base, e.type AS event_type, e.body::text AS body,
            w.user_id, w.url, w.status, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at
     FROM c JOIN events e ON e.id = c.event_id JOIN webhook_endpoints w ON w.id = c.endpoint_id`,
    [p.now, p.limit, p.leaseSeconds, p.resting, p.probing, p.endpointConcurrency],
  );
}

/** Ends a delivery as failed, its lease released. */
export async function failDelivery(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL WHERE id = $1`, [id]);
}

/** The attempt's row and the delivery's next state, in one statement. */
export async function recordAttempt(
  q: Queryable,
  a: {
    delivery: Pick<ClaimedDelivery, 'id' | 'endpoint_id' | 'event_id' | 'attempts' | 'event_type'>;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    nextRetryAt: string | null;
    at: string;
    status: 'delivered' | 'pending' | 'failed';
    excerpt: string | null;
  },
): Promise<void> {
  const d = a.delivery;
  await q.query(
    `WITH a AS (
       INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, event_id, attempt, status_code, duration_ms, error, next_retry_at, created_at, event_type, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12, $13))
     UPDATE webhook_deliveries SET status = $11, next_attempt_at = COALESCE($9::timestamptz, next_attempt_at), lease_until = NULL WHERE id = $2`,
    [uuidv7(), d.id, d.endpoint_id, d.event_id, d.attempts, a.statusCode, a.durationMs, a.error, a.nextRetryAt, a.at, a.status, d.event_type, a.excerpt],
  );
}

/** Disables an enabled endpoint; false when it was not enabled (disabled already, or gone). */
export async function disableEndpoint(q: Queryable, endpointId: string, reason: 'gone' | 'failing'): Promise<boolean> {
  const rows = await q.query(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2 WHERE id = $1 AND status = 'enabled' RETURNING id`, [endpointId, reason]);
  return rows.length > 0;
}

/** Fails the endpoint's other pending deliveries (it was disabled). */
export async function failPendingOfEndpoint(q: Queryable, endpointId: string, exceptId: string): Promise<void> {
  await q.query(`UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL WHERE endpoint_id = $1 AND status = 'pending' AND id <> $2`, [endpointId, exceptId]);
}

/** A page of the user's endpoints (the list's where, order and limit). */
export function selectEndpointsPage(db: Db, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  return db.query<EndpointRow & Record<string, unknown>>(`SELECT w.* FROM webhook_endpoints w WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT ${o.limit}`, o.params);
}

/** A page of an endpoint's attempts (the list's where, order and limit). */
export function selectAttemptsPage(db: Db, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  return db.query<AttemptRow & Record<string, unknown>>(`SELECT a.* FROM webhook_attempts a WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT ${o.limit}`, o.params);
}

/** A `ping` event for one endpoint, its own resource (sequence 1), and its delivery, due at once; answers the event's body. */
export async function insertPing(q: Queryable, eventId: string, endpointId: string): Promise<string> {
  const [event] = await q.query<{ body: string }>(
    `INSERT INTO events (id, type, body, resource_key, sequence) VALUES ($1::uuid, 'ping',
       json_build_object('id', $1::uuid::text, 'type', 'ping', 'created_at', ${EVENT_TIME_SQL}, 'book_slug', NULL, 'sequence', 1,
                         'data', json_build_object('object', json_build_object('endpoint_id', $2::text))),
       'ping:' || $1::uuid::text, 1)
     RETURNING body::text AS body`,
    [eventId, endpointId],
  );
  await q.query(`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, resource_key, sequence) VALUES ($1, $2, $3, $4, 1)`, [uuidv7(), eventId, endpointId, `ping:${eventId}`]);
  return event.body;
}

/** Locks one delivery of the endpoint; false when it has none with this id. */
export async function lockDelivery(q: Queryable, deliveryId: string, endpointId: string): Promise<boolean> {
  const rows = await q.query(`SELECT id FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2 FOR UPDATE`, [deliveryId, endpointId]);
  return rows.length > 0;
}

/**
 * Makes a delivery pending and due now, its retry schedule starting again;
 * one in flight keeps its time, one pending is made due now.
 */
export async function redeliver(q: Queryable, deliveryId: string): Promise<DeliveryRow> {
  const [row] = await q.query<DeliveryRow>(
    `UPDATE webhook_deliveries d SET
       retry_base = CASE WHEN d.status = 'pending' THEN d.retry_base ELSE d.attempts END,
       status = 'pending',
       next_attempt_at = CASE WHEN d.status = 'pending' AND d.lease_until > now() THEN d.next_attempt_at ELSE LEAST(d.next_attempt_at, now()) END
     FROM events e WHERE d.id = $1 AND e.id = d.event_id
     RETURNING d.id, d.event_id, e.type AS event_type, d.status, d.attempts, d.next_attempt_at, d.created_at`,
    [deliveryId],
  );
  return row;
}
