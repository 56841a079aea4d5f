import type { Db, Queryable } from '../db/client.js';

/** What pg-boss calls to reach the database (its `db` option). */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * pg-boss 10 sends its schema, migration and maintenance scripts as one
 * string of several statements between `BEGIN;` and `COMMIT;` (plans.locked()
 * in its plans.js), and everything else as a single statement.
 */
const WRAPPED_SCRIPT = /^\s*BEGIN\s*;([\s\S]*?)\bCOMMIT\s*;?\s*$/i;

/**
 * pg-boss over our Db instead of its own pg Pool, so the queue runs on PGlite
 * (one in-process connection) as well as PostgreSQL and shares our type
 * parsers. A wrapped script loses its BEGIN and COMMIT and runs whole over
 * the simple protocol (the server splits it) inside our own transaction: one
 * connection, rolled back on error, so nothing is left half-done and no
 * connection goes back to the pool inside an aborted transaction.
 *
 * Calls in flight are counted so that stopping the queue can wait for them
 * before the database is closed.
 */
export function createBossDb(db: Db): BossDb & { drain(): Promise<void> } {
  let inFlight = 0;
  let idle: (() => void)[] = [];

  async function run(text: string, values?: unknown[]) {
    if (values && values.length) return { rows: await db.query(text, values) };
    const script = WRAPPED_SCRIPT.exec(text);
    if (script) {
      await db.transaction((tx) => tx.exec(script[1]));
      return { rows: [] };
    }
    if (/^\s*BEGIN\b/i.test(text)) throw new Error('pg-boss sent a transaction script that does not end in COMMIT; refusing to run part of it');
    return { rows: await db.query(text) };
  }

  return {
    async executeSql(text, values) {
      inFlight++;
      try {
        return await run(text, values);
      } finally {
        if (--inFlight === 0) {
          for (const resolve of idle) resolve();
          idle = [];
        }
      }
    },
    drain() {
      return inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}

/** pg-boss on a caller's transaction: a job sent through it commits or rolls back with that transaction. */
export function transactionBossDb(tx: Queryable): BossDb {
  return {
    async executeSql(text, values) {
      return { rows: await tx.query(text, values) };
    },
  };
}
