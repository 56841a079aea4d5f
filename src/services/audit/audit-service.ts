import type { Db, Queryable } from '../../db/client.js';
import { insertAuditEvent, selectAuditEvents, type AuditEvent } from './audit-repository.js';

export type { AuditEvent };

export function createAuditService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** Records an audit event; pass the transaction that makes the change so both land together. */
    async record(event: string, e: { userId: string | null; requestId: string | null; data?: Record<string, unknown> }, q: Queryable = db) {
      await insertAuditEvent(q, { event, userId: e.userId, requestId: e.requestId, data: e.data ?? {} });
    },

    async list(filter: { userId?: string; event?: string; limit?: number } = {}): Promise<AuditEvent[]> {
      return selectAuditEvents(db, { userId: filter.userId ?? null, event: filter.event ?? null, limit: filter.limit ?? 100 });
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
