import { one, type Queryable } from '../../db/client.js';
import type { EventType } from '../events/event-types.js';

export interface EndpointRow {
  id: string;
  user_id: string;
  url: string;
  description: string;
  event_types: EventType[] | null;
  book_slugs: string[] | null;
  status: 'enabled' | 'disabled';
  disabled_reason: 'failing' | 'gone' | 'manual' | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: EventType | 'ping' | null;
  response_excerpt: string | null;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: string | null;
  created_at: string;
}

/** A delivery (an event to one endpoint) as POST …/deliveries/{id}/retry/ answers it. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: EventType | 'ping';
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string;
  created_at: string;
}

/** Always by owner: another user's endpoint is simply not there. */
export function findEndpoint(q: Queryable, userId: string, id: string, o: { forUpdate?: boolean } = {}) {
  return one<EndpointRow>(q, `SELECT * FROM webhook_endpoints WHERE id = $1 AND user_id = $2${o.forUpdate ? ' FOR UPDATE' : ''}`, [id, userId]);
}

export function findEndpointById(q: Queryable, id: string) {
  return one<EndpointRow>(q, `SELECT * FROM webhook_endpoints WHERE id = $1`, [id]);
}

export async function countEndpoints(q: Queryable, userId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1`, [userId]);
  return row.n;
}

export function insertEndpoint(
  q: Queryable,
  e: { id: string; userId: string; url: string; description: string; eventTypes: EventType[] | null; bookSlugs: string[] | null; secretSealed: string },
) {
  return one<EndpointRow>(
    q,
    `INSERT INTO webhook_endpoints (id, user_id, url, description, event_types, book_slugs, secret_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [e.id, e.userId, e.url, e.description, e.eventTypes, e.bookSlugs, e.secretSealed],
  ) as Promise<EndpointRow>;
}

const COLUMNS = ['url', 'description', 'event_types', 'book_slugs', 'status', 'disabled_reason', 'secret_sealed', 'previous_secret_sealed'] as const;
export type EndpointChanges = Partial<Pick<EndpointRow, (typeof COLUMNS)[number]>> & { previousSecretTtlSeconds?: number };

export function updateEndpoint(q: Queryable, id: string, changes: EndpointChanges) {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const c of COLUMNS) {
    if (changes[c] === undefined) continue;
    params.push(changes[c]);
    sets.push(`${c} = $${params.length}`);
  }
  if (changes.previousSecretTtlSeconds !== undefined) {
    params.push(changes.previousSecretTtlSeconds);
    sets.push(`previous_secret_expires_at = now() + make_interval(secs => $${params.length})`);
  }
  return one<EndpointRow>(q, `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params) as Promise<EndpointRow>;
}

export async function deleteEndpoint(q: Queryable, userId: string, id: string): Promise<boolean> {
  return (await q.query(`DELETE FROM webhook_endpoints WHERE id = $1 AND user_id = $2 RETURNING id`, [id, userId])).length > 0;
}

/** Every endpoint of a user (an account being deleted): with them go their deliveries and attempts. */
export async function deleteEndpointsOfUser(q: Queryable, userId: string): Promise<void> {
  await q.query(`DELETE FROM webhook_endpoints WHERE user_id = $1`, [userId]);
}

/** Slugs among `slugs` of live books where the user is owner or admin now. */
export async function administeredSlugs(q: Queryable, userId: string, slugs: string[]): Promise<Set<string>> {
  const rows = await q.query<{ slug: string }>(
    `SELECT b.slug FROM books b JOIN book_members m ON m.book_id = b.id AND m.user_id = $1 AND m.role IN ('owner', 'admin')
     WHERE b.slug = ANY ($2) AND b.deleted_at IS NULL`,
    [userId, slugs],
  );
  return new Set(rows.map((r) => r.slug));
}
