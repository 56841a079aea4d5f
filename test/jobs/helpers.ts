import type { Db } from '../../src/db/client.js';

/** Polls until fn returns something truthy, or fails after timeoutMs naming what it waited for. */
export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Drops a job queue's schema on PostgreSQL. The test database's drop() removes
 * `<its schema>_pgboss` too; this also covers a queue given a schema of its own.
 */
export async function dropQueueSchema(db: Db, schema: string) {
  if (db.kind === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}
