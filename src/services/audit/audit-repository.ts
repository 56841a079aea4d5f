import type { Queryable } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';

export interface AuditEvent {
  id: string;
  event: string;
  user_id: string | null;
  request_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
}

export async function insertAuditEvent(q: Queryable, e: { event: string; userId: string | null; requestId: string | null; data: Record<string, unknown> }): Promise<void> {
  await q.query(`INSERT INTO audit_events (id, event, user_id, request_id, data) VALUES ($1, $2, $3, $4, $5)`, [uuidv7(), e.event, e.userId, e.requestId, JSON.stringify(e.data)]);
}

/** Newest first, optionally of one user and one event name. */
export function selectAuditEvents(q: Queryable, filter: { userId: string | null; event: string | null; limit: number }): Promise<AuditEvent[]> {
  return q.query<AuditEvent>(
    `SELECT id, event, user_id, request_id, data, created_at FROM audit_events
     WHERE ($1::uuid IS NULL OR user_id = $1) AND ($2::text IS NULL OR event = $2)
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    [filter.userId, filter.event, filter.limit],
  );
}
