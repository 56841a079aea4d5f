import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config/config.js';
import { lockDataDir } from './dir-lock.js';
import { isRetryableTransactionError, translatePgError } from './pg-errors.js';

/** Anything that runs one parameterised SQL statement: the database itself or a transaction. */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/** A transaction's handle: statements, and scripts of several statements (simple protocol). */
export interface Tx extends Queryable {
  exec(sql: string): Promise<void>;
}

/** A transaction its opener ends: the request-wide unit of work of an idempotent request. */
export interface OpenTransaction extends Tx {
  readonly open: boolean;
  commit(): Promise<void>;
  /** Safe to call more than once, and after a failed commit. */
  rollback(): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs fn in one transaction. Inside an ambient transaction (see
   * `withAmbient`) fn joins it instead, so a service's own transaction and the
   * request's idempotency record commit or roll back together. fn must not
   * catch a database error and carry on (use ON CONFLICT instead): the
   * transaction is aborted by then. A standalone transaction that fails on a
   * serialization failure or deadlock is run again (a few times).
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Opens a transaction the caller commits or rolls back. */
  begin(): Promise<OpenTransaction>;
  /** Runs fn with `tx` ambient: `query` and `transaction` on this Db, anywhere below fn, use it while it is open. */
  withAmbient<T>(tx: OpenTransaction, fn: () => T): T;
  /** True inside an open ambient transaction. */
  inTransaction(): boolean;
  /**
   * Runs fn outside any ambient transaction: its statements autocommit on
   * their own (rate-limit counters). PGlite has a single connection, so there
   * they cannot be independent: they join the ambient transaction, if any.
   */
  outside<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs a script of several statements (simple protocol), outside any transaction. */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

const TIMESTAMPTZ_OID = 1184;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Postgres prints timestamptz as `2026-11-21 10:00:00.1234+00` (session time
 * zone UTC). The wire format is ISO 8601 with exactly six fractional digits
 * and `Z`, which also sorts and compares as text. JS Date would drop the
 * microseconds, so timestamps stay strings end to end.
 */
export function parseTimestamp(text: string): string {
  const m = /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00(?::00)?$/.exec(text);
  if (m) return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(6, '0')}Z`;
  if (text === 'infinity' || text === '-infinity') return text;
  const d = new Date(text.replace(' ', 'T'));
  return d.toISOString().replace('Z', '000Z');
}

const parseInt8 = (text: string) => Number(text);

export async function createDb(config: Config): Promise<Db> {
  if (config.database.kind === 'postgres') return createPostgresDb(config.database.url!, config.database);
  const dir = path.join(config.dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const release = lockDataDir(dir);
  try {
    const db = await createPgliteDb(dir);
    const close = db.close;
    return { ...db, close: async () => { await close(); release(); } };
  } catch (err) {
    release();
    throw err;
  }
}

const statementNames = new Map<string, string>();

/**
 * Statements with parameters are prepared once per connection under a name
 * derived from their text, so PostgreSQL parses and plans each hot query once
 * instead of on every call. Statements without parameters stay unnamed: some
 * are one-off scripts.
 */
function statement(text: string, params: unknown[] | undefined): pg.QueryConfig {
  if (!params || params.length === 0) return { text };
  let name = statementNames.get(text);
  if (!name) {
    name = `mb_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (statementNames.size < 5000) statementNames.set(text, name);
  }
  return { name, text, values: params };
}

export function createPostgresDb(url: string, opts: { poolSize?: number; schema?: string | null } = {}): Db {
  const types = {
    getTypeParser(oid: number, format?: string) {
      if (oid === TIMESTAMPTZ_OID) return parseTimestamp;
      if (oid === INT8_OID || oid === NUMERIC_OID) return parseInt8;
      return pg.types.getTypeParser(oid, format as 'text');
    },
  };
  const searchPath = opts.schema ? ` -c search_path=${opts.schema}` : '';
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    options: `-c TimeZone=UTC${searchPath}`,
    types,
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});

  return withTransactions({
    kind: 'postgres',
    async query<R>(text: string, params?: unknown[]) {
      const res = await pool.query(statement(text, params));
      return res.rows as R[];
    },
    async begin() {
      const client = await pool.connect();
      let open = true;
      // The pool stops listening while a connection is checked out; a connection lost mid-transaction
      // must not become an uncaught 'error' that ends the process. Its next statement fails instead.
      let lost: Error | undefined;
      const onError = (err: Error) => (lost = err);
      client.on('error', onError);
      // A connection whose transaction could not be ended cleanly is destroyed, never reused.
      const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
        if (!open) return;
        open = false;
        client.off('error', onError);
        if (lost) {
          client.release(lost);
          if (sql === 'COMMIT') throw lost;
          return;
        }
        try {
          const res = await client.query(sql);
          // COMMIT of a transaction a failed statement aborted answers ROLLBACK, not an error: it must not pass for a commit.
          if (sql === 'COMMIT' && res.command === 'ROLLBACK') throw new Error('the transaction was aborted by an earlier error and rolled back');
          client.release();
        } catch (err) {
          client.release(err as Error);
          if (sql === 'COMMIT') throw err;
        }
      };
      try {
        await client.query('BEGIN');
      } catch (err) {
        client.off('error', onError);
        client.release(err as Error);
        throw err;
      }
      return {
        get open() {
          return open;
        },
        async query<R>(text: string, params?: unknown[]) {
          mustBeOpen(open);
          return (await client.query(statement(text, params))).rows as R[];
        },
        async exec(sql: string) {
          mustBeOpen(open);
          await client.query(sql);
        },
        commit: () => end('COMMIT'),
        rollback: () => end('ROLLBACK'),
      };
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
    },
  });
}

export async function createPgliteDb(dataDir?: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const lite = await PGlite.create({
    dataDir,
    parsers: { [TIMESTAMPTZ_OID]: parseTimestamp, [INT8_OID]: parseInt8, [NUMERIC_OID]: parseInt8 },
  });
  await lite.exec(`SET TIME ZONE 'UTC'`);
  let closed = false;
  return withTransactions({
    kind: 'pglite',
    async query<R>(text: string, params?: unknown[]) {
      return (await lite.query<R>(text, params)).rows;
    },
    // PGlite is one connection: its own mutex makes every other query wait
    // while a transaction is open, which gives the same isolation as a pool.
    // Its transaction() holds that mutex for as long as the callback runs, so
    // an open transaction is a callback waiting to be told how to end.
    begin() {
      return new Promise<OpenTransaction>((resolve, reject) => {
        let open = true;
        let finish!: (commit: boolean) => void;
        const decided = new Promise<boolean>((r) => (finish = r));
        const outcome = lite.transaction(async (t) => {
          resolve({
            get open() {
              return open;
            },
            async query<R>(text: string, params?: unknown[]) {
              mustBeOpen(open);
              return (await t.query<R>(text, params)).rows;
            },
            async exec(sql: string) {
              mustBeOpen(open);
              await t.exec(sql);
            },
            async commit() {
              if (!open) return;
              open = false;
              finish(true);
              await outcome;
            },
            async rollback() {
              if (!open) return;
              open = false;
              finish(false);
              await outcome.catch(() => {});
            },
          });
          if (!(await decided)) await t.rollback();
        });
        // Fails before the handle exists (BEGIN refused): the caller hears of it.
        outcome.catch(reject);
      });
    },
    async exec(sql: string) {
      await lite.exec(sql);
    },
    async close() {
      if (closed) return;
      closed = true;
      await lite.close();
    },
  });
}

/** A statement sent on an ended transaction would run on a connection someone else now holds. */
function mustBeOpen(open: boolean) {
  if (!open) throw new Error('the transaction has already ended');
}

interface Connection {
  kind: Db['kind'];
  query<R>(text: string, params?: unknown[]): Promise<R[]>;
  begin(): Promise<OpenTransaction>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

const TRANSACTION_ATTEMPTS = 3;

/**
 * Every database error leaves the Db translated once, here: the ones the API
 * can explain (a unique constraint, a timeout, a deadlock…) as their
 * AppError, with the database's own error as its cause; the rest unchanged.
 */
async function translated<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    throw translatePgError(err) ?? err;
  }
}

function translating<Q extends Tx>(q: Q): Q {
  const query = q.query.bind(q);
  const exec = q.exec.bind(q);
  return Object.assign(Object.create(q) as Q, {
    query: <R>(text: string, params?: unknown[]) => translated(query<R>(text, params)),
    exec: (sql: string) => translated(exec(sql)),
  });
}

/**
 * The transaction behaviour both backends share: an ambient transaction per
 * async context (AsyncLocalStorage), joined by `query` and `transaction`
 * while it is open, and standalone transactions retried on serialization
 * failures and deadlocks.
 */
function withTransactions(conn: Connection): Db {
  const ambient = new AsyncLocalStorage<OpenTransaction>();
  const current = () => {
    const tx = ambient.getStore();
    return tx?.open ? tx : undefined;
  };

  async function standalone<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const tx = translating(await conn.begin());
      try {
        // Ambient inside too, so anything fn calls that uses this Db joins the transaction.
        const result = await ambient.run(tx, () => fn(tx));
        await tx.commit();
        return result;
      } catch (err) {
        await tx.rollback();
        if (attempt < TRANSACTION_ATTEMPTS && isRetryableTransactionError(err)) continue;
        throw err;
      }
    }
  }

  return {
    kind: conn.kind,
    query<R>(text: string, params?: unknown[]) {
      const tx = current();
      return tx ? tx.query<R>(text, params) : translated(conn.query<R>(text, params));
    },
    transaction<T>(fn: (tx: Tx) => Promise<T>) {
      const tx = current();
      return tx ? fn(tx) : standalone(fn);
    },
    begin: async () => translating(await conn.begin()),
    withAmbient: (tx, fn) => ambient.run(tx, fn),
    inTransaction: () => current() !== undefined,
    outside<T>(fn: () => Promise<T>) {
      return conn.kind === 'pglite' ? fn() : ambient.exit(fn);
    },
    exec: (sql) => conn.exec(sql),
    close: () => conn.close(),
  };
}

/** First row or undefined. */
export async function one<R>(q: Queryable, text: string, params?: unknown[]): Promise<R | undefined> {
  const rows = await q.query<R>(text, params);
  return rows[0];
}
