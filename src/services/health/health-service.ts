import type { Db } from '../../db/client.js';

export function createHealthService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** Whether the database answers; readiness probes ask this. */
    async databaseReady(): Promise<{ ready: boolean; database: Db['kind'] }> {
      try {
        await db.query('SELECT 1');
        return { ready: true, database: db.kind };
      } catch {
        return { ready: false, database: db.kind };
      }
    },
  };
}
