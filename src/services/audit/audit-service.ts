import type { Db, Queryable } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';

export interface AuditEvent {
  id: string;
  event: string;
  user_id: string | null;
  request_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
}

export function createAuditService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** Records an audit event; pass the transaction that makes the change so both land together. */
    async record(event: string, e: { userId: string | null; requestId: string | null; data?: Record<string, unknown> }, q: Queryable = db) {
      await q.query(`INSERT INTO audit_events (id, event, user_id, request_id, data) VALUES ($1, $2, $3, $4, $5)`, [
        uuidv7(),
        event,
        e.userId,
        e.requestId,
        JSON.stringify(e.data ?? {}),
      ]);
    },

    async list(filter: { userId?: string; event?: string; limit?: number } = {}): Promise<AuditEvent[]> {
      return db.query<AuditEvent>(
        `SELECT id, event, user_id, request_id, data, created_at FROM audit_events
         WHERE ($1::uuid IS NULL OR user_id = $1) AND ($2::text IS NULL OR event = $2)
         ORDER BY created_at DESC, id DESC LIMIT $3`,
        [filter.userId ?? null, filter.event ?? null, filter.limit ?? 100],
      );
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
