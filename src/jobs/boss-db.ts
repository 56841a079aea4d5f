import type { Db, Queryable } from '../db/client.js';
import { splitSql } from '../db/migrate.js';

/** What pg-boss calls to reach the database (its `db` option). */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * pg-boss over our Db instead of its own pg Pool, so the queue runs on PGlite
 * (one in-process connection) as well as PostgreSQL and shares our type
 * parsers. Its schema and maintenance scripts arrive as one string of several
 * statements inside BEGIN … COMMIT; the extended protocol takes one statement
 * at a time, so they are split and run in our own transaction, which also
 * rolls back on error (a failed multi-statement string would otherwise leave
 * the connection inside an aborted transaction).
 *
 * Calls in flight are counted so that stopping the queue can wait for them
 * before the database is closed.
 */
export function createBossDb(db: Db): BossDb & { drain(): Promise<void> } {
  let inFlight = 0;
  let idle: (() => void)[] = [];

  async function run(text: string, values?: unknown[]) {
    if (values && values.length) return { rows: await db.query(text, values) };
    const statements = splitSql(text);
    if (statements.length === 1) return { rows: await db.query(statements[0]) };
    const body = statements.filter((s) => !/^(BEGIN|COMMIT)$/i.test(s));
    const rows = await db.transaction(async (tx) => {
      let last: unknown[] = [];
      for (const statement of body) last = await tx.query(statement);
      return last;
    });
    return { rows };
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
