import type { Tx } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';
import { rememberEventTrace } from '../../lib/tracing.js';
import { insertEvent } from './event-repository.js';
import type { EventType } from './event-types.js';

export { EVENT_TIME_SQL } from './event-repository.js';

/**
 * Records an event in the caller's transaction (an outbox): no event without
 * its change, no change without its event. It takes a `Tx`, which only
 * db.transaction (or an opened request transaction) hands out, so the
 * compiler refuses an event written on the bare database. In one statement, so a change
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
export async function recordEvent(tx: Tx, type: EventType, bookId: string, object: unknown): Promise<void> {
  const id = uuidv7();
  // Tracing on: its webhook deliveries join the trace of the request or job recording it (lib/tracing.ts).
  rememberEventTrace(id);
  await insertEvent(tx, { id, type, bookId, objectJson: JSON.stringify(object), resourceKey: resourceKeyOf(type, bookId, object) });
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
