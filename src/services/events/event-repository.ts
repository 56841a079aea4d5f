import type { Queryable } from '../../db/client.js';
import { EVENT_RETENTION_DAYS } from './event-types.js';

/** The event's created_at in the API's timestamp form (microseconds, UTC). */
export const EVENT_TIME_SQL = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Kept: an event younger than the retention (on event_recipients r). */
const KEPT = `r.created_at > now() - interval '${EVENT_RETENTION_DAYS} days'`;

/**
 * Inserts an event in one statement: the event with its sequence number
 * among its resource's events (an upsert whose row lock lasts until the
 * transaction commits), its recipients (the book's owner and admins now),
 * and one pending delivery per enabled endpoint of theirs that wants it.
 * See record-event.ts for why it runs in the change's transaction.
 */
export async function insertEvent(q: Queryable, e: { id: string; type: string; bookId: string; objectJson: string; resourceKey: string }): Promise<void> {
  await q.query(
    `WITH b AS (SELECT id, slug FROM books WHERE id = $3),
     sq AS (
       INSERT INTO event_sequences (resource_key, last) SELECT $5::text, 1 FROM b
       ON CONFLICT (resource_key) DO UPDATE SET last = event_sequences.last + 1 RETURNING last),
     ev AS (
       INSERT INTO events (id, type, book_id, book_slug, body, resource_key, sequence)
       SELECT $1::uuid, $2::text, b.id, b.slug,
              json_build_object('id', $1::uuid::text, 'type', $2::text, 'created_at', ${EVENT_TIME_SQL}, 'book_slug', b.slug,
                                 'sequence', sq.last, 'data', json_build_object('object', $4::json)),
              $5::text, sq.last
       FROM b, sq RETURNING id, created_at, book_slug, resource_key, sequence),
     rc AS (
       INSERT INTO event_recipients (user_id, event_id, created_at)
       SELECT m.user_id, ev.id, ev.created_at FROM ev JOIN book_members m ON m.book_id = $3 AND m.role IN ('owner', 'admin')
       RETURNING user_id)
     INSERT INTO webhook_deliveries (id, event_id, endpoint_id, resource_key, sequence)
     SELECT gen_random_uuid(), ev.id, w.id, ev.resource_key, ev.sequence FROM ev JOIN webhook_endpoints w
       ON w.user_id IN (SELECT user_id FROM rc) AND w.status = 'enabled'
      AND (w.event_types IS NULL OR $2 = ANY (w.event_types))
      AND (w.book_slugs IS NULL OR ev.book_slug = ANY (w.book_slugs))`,
    [e.id, e.type, e.bookId, e.objectJson, e.resourceKey],
  );
}

/** The condition that keeps a recipient row in the list (for paginate's where). */
export const KEPT_EVENTS = KEPT;

/** One page of the caller's events (see paginate for where/params/orderBy): each event's JSON text as stored. */
export function selectEventPage(q: Queryable, o: { where: string[]; params: unknown[]; orderBy: string; limit: number }) {
  return q.query<{ id: string; created_at: string; body: string }>(
    `SELECT r.event_id AS id, r.created_at, e.body::text AS body FROM event_recipients r JOIN events e ON e.id = r.event_id
             WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT ${o.limit}`,
    o.params,
  );
}

/** One of the user's kept events, as its JSON text (undefined: not theirs, expired or none). */
export async function findEventBody(q: Queryable, userId: string, id: string): Promise<string | undefined> {
  const [row] = await q.query<{ body: string }>(
    `SELECT e.body::text AS body FROM event_recipients r JOIN events e ON e.id = r.event_id WHERE r.user_id = $1 AND r.event_id = $2 AND ${KEPT}`,
    [userId, id],
  );
  return row?.body;
}

/** Deletes the events older than the retention, with their recipients, deliveries and attempts; how many went. */
export async function deleteExpiredEvents(q: Queryable): Promise<number> {
  const rows = await q.query(`DELETE FROM events WHERE created_at < now() - interval '${EVENT_RETENTION_DAYS} days' RETURNING id`);
  return rows.length;
}
