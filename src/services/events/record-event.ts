import type { Queryable } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';
import { rememberEventTrace } from '../../lib/tracing.js';
import type { EventType } from './event-types.js';

/** The event's created_at in the API's timestamp form (microseconds, UTC). */
export const EVENT_TIME_SQL = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Records an event in the caller's transaction (an outbox): no event without
 * its change, no change without its event. In one statement, so a change
 * pays one round trip: the event, its recipients (the book's owner and
 * admins now: who hears of it is decided when it happens) and one pending
 * delivery per enabled endpoint of theirs that wants it. The dispatcher
 * (webhook-endpoints/dispatcher.ts) sends those once this commits.
 *
 * `object` is the resource as its GET route answers it now; for a deletion
 * `{id}` (or the book's `{slug}`).
 */
export async function recordEvent(tx: Queryable, type: EventType, bookId: string, object: unknown): Promise<void> {
  const id = uuidv7();
  // Tracing on: its webhook deliveries join the trace of the request or job recording it (lib/tracing.ts).
  rememberEventTrace(id);
  await tx.query(
    `WITH b AS (SELECT id, slug FROM books WHERE id = $3),
     ev AS (
       INSERT INTO events (id, type, book_id, book_slug, body)
       SELECT $1::uuid, $2::text, b.id, b.slug,
              json_build_object('id', $1::uuid::text, 'type', $2::text, 'created_at', ${EVENT_TIME_SQL}, 'book_slug', b.slug,
                                 'data', json_build_object('object', $4::json))
       FROM b RETURNING id, created_at, book_slug),
     rc AS (
       INSERT INTO event_recipients (user_id, event_id, created_at)
       SELECT m.user_id, ev.id, ev.created_at FROM ev JOIN book_members m ON m.book_id = $3 AND m.role IN ('owner', 'admin')
       RETURNING user_id)
     INSERT INTO webhook_deliveries (id, event_id, endpoint_id)
     SELECT gen_random_uuid(), ev.id, w.id FROM ev JOIN webhook_endpoints w
       ON w.user_id IN (SELECT user_id FROM rc) AND w.status = 'enabled'
      AND (w.event_types IS NULL OR $2 = ANY (w.event_types))
      AND (w.book_slugs IS NULL OR ev.book_slug = ANY (w.book_slugs))`,
    [id, type, bookId, JSON.stringify(object)],
  );
}
