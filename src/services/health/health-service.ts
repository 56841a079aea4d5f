import type { Db } from '../../db/client.js';
import { pingDatabase } from './health-repository.js';

export function createHealthService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** Whether the database answers; readiness probes ask this. */
    async databaseReady(): Promise<{ ready: boolean; database: Db['kind'] }> {
      try {
        await pingDatabase(db);
        return { ready: true, database: db.kind };
      } catch {
        return { ready: false, database: db.kind };
      }
    },
  };
}
