import type { Queryable } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';
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
 * `{id}` (or the book's `{slug}`). The event's `sequence` is its number among
 * its resource's events (resourceKeyOf), taken by an upsert whose row lock
 * lasts until this transaction commits: numbers follow commit order.
 */
export async function recordEvent(tx: Queryable, type: EventType, bookId: string, object: unknown): Promise<void> {
  await tx.query(
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
    [uuidv7(), type, bookId, JSON.stringify(object), resourceKeyOf(type, bookId, object)],
  );
}

/**
 * The resource an event is about, whose events `sequence` counts: the
 * object's id (a member: its user in the book; a book: the book; a
 * transcription: its recording).
 */
export function resourceKeyOf(type: EventType, bookId: string, object: unknown): string {
  const kind = type.slice(0, type.indexOf('.'));
  const o = (object ?? {}) as { id?: unknown; user_id?: unknown; media_id?: unknown };
  if (kind === 'book') return `book:${bookId}`;
  // A transcription is its recording's: it has no id of its own.
  if (kind === 'transcription') return `transcription:${String(o.media_id)}`;
  if (kind === 'member') return `member:${bookId}:${String(o.user_id ?? o.id)}`;
  return `${kind}:${String(o.id)}`;
}
