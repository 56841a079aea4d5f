import type { Db } from '../../db/client.js';
import { paginate, type CursorCodec, type ListQuery, type SortKey } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { Actor } from '../books/book-access.js';
import { deleteExpiredEvents, findEventBody, KEPT_EVENTS, selectEventPage } from './event-repository.js';
import type { EventType } from './event-types.js';

const ORDERINGS: { created: SortKey[]; sync: SortKey[] } = {
  created: [
    { sql: 'r.created_at', dir: 'desc', field: 'created_at', cast: 'timestamptz' },
    { sql: 'r.event_id', dir: 'desc', field: 'id', cast: 'uuid' },
  ],
  // Events never change: with updated_since the list runs oldest first from that time.
  sync: [
    { sql: 'r.created_at', dir: 'asc', field: 'created_at', cast: 'timestamptz' },
    { sql: 'r.event_id', dir: 'asc', field: 'id', cast: 'uuid' },
  ],
};


/** The caller's events: those of books where they were owner or admin when each happened, for 30 days. */
export function createEventService(deps: { db: Db; cursors: CursorCodec }) {
  const { db, cursors } = deps;
  return {
    /** Items are each event's JSON text as stored. */
    async listEvents(actor: Actor, query: ListQuery & { type?: EventType; bookSlug?: string }) {
      const where = [`r.user_id = $1`, KEPT_EVENTS];
      const params: unknown[] = [actor.id];
      if (query.type) {
        params.push(query.type);
        where.push(`e.type = $${params.length}`);
      }
      if (query.bookSlug) {
        params.push(query.bookSlug);
        where.push(`e.book_slug = $${params.length}`);
      }
      const { page, watermark } = await paginate<{ id: string; created_at: string; body: string }>(db, cursors, query, {
        list: `events:${actor.id}:${query.type ?? ''}:${query.bookSlug ?? ''}`,
        ordering: { name: 'created', keys: ORDERINGS.created },
        sync: ORDERINGS.sync,
        where,
        params,
        select: (o) =>
          selectEventPage(db, o),
      });
      return { page: { ...page, items: page.items.map((r) => r.body) }, watermark };
    },

    /** One event's JSON text; another user's (or an expired) event is not found. */
    async getEvent(actor: Actor, id: string): Promise<string> {
      if (!isUuid(id)) throw errors.notFound('event');
      const body = await findEventBody(db, actor.id, id);
      if (body === undefined) throw errors.notFound('event');
      return body;
    },

    /** Housekeeping: events older than the retention go, with their recipients, deliveries and attempts. */
    async removeExpired(): Promise<number> {
      return deleteExpiredEvents(db);
    },
  };
}
export type EventService = ReturnType<typeof createEventService>;
