import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config/config.js';
import { lockDataDir } from './dir-lock.js';
import { isRetryableTransactionError, translateDbError } from './pg-errors.js';
import { createSharedReads } from './shared-read.js';
import { failSpan, inSpan, SpanKind, startSpan, tracingInSpan, type Span } from '../lib/tracing.js';

/** Anything that runs one parameterised SQL statement: the database itself or a transaction. */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/**
 * A read many requests ask at once (a page of a list): on the Db itself,
 * identical queries asked together share one execution (see
 * db/shared-read.ts), and the rows are shared, so they are typed read-only;
 * in a transaction, a plain query of that transaction.
 */
export function sharedQuery<R>(q: Queryable, text: string, params: unknown[]): Promise<readonly Readonly<R>[]> {
  return 'sharedRead' in q ? (q as Db).sharedRead<R>(text, params) : q.query<R>(text, params);
}

/**
 * A transaction's handle: statements, and scripts of several statements
 * (simple protocol). Whoever holds one decides where a write goes: a service
 * that takes a `tx` writes in its caller's unit of work and commits nothing
 * itself; one that takes none opens its own transactions.
 */
export interface Tx extends Queryable {
  exec(sql: string): Promise<void>;
  /**
   * Runs fn in a savepoint of this transaction: a failure of fn undoes fn's
   * writes only (ROLLBACK TO SAVEPOINT) and is thrown on; the transaction
   * stays usable. Costs two round trips: for work whose failure the caller
   * handles, not for every service call.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `step` as the transaction's last work before COMMIT (an idempotent
   * request's stored answer then leaves with the COMMIT, in one round trip):
   * for a row lock that should be held as briefly as possible. A step that throws
   * fails the commit, and the transaction is rolled back.
   */
  beforeCommit(step: () => Promise<void>): void;
}

/** A transaction its opener ends: the request-wide unit of work of an idempotent request. */
export interface OpenTransaction extends Tx {
  readonly open: boolean;
  /**
   * Runs the beforeCommit steps, then COMMIT. With `finalScript` (statements
   * whose values the caller inlined with sqlLiteral), the script and COMMIT
   * leave in one round trip: for the stored answer of an idempotent request.
   */
  commit(finalScript?: string): Promise<void>;
  /** Safe to call more than once, and after a failed commit. */
  rollback(): Promise<void>;
  /**
   * ROLLBACK TO SAVEPOINT `name`, forgetting the beforeCommit steps of the
   * work it undoes. The savepoint must have been set before any step was
   * (as the idempotency claim's is, in the script that opens the transaction).
   */
  rollbackToSavepoint(name: string): Promise<void>;
}

/**
 * The database: statements that autocommit one by one, and transactions.
 * Nothing here joins a transaction by itself: a statement on the Db never
 * runs in one, and a statement on the Db from code that holds an open
 * transaction (see `holding`) is refused rather than run beside it (on
 * PGlite's single connection it would wait for that very transaction for
 * ever; on PostgreSQL it would see and write outside it).
 */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs fn in a new transaction of its own and commits it. fn must not catch
   * a database error and carry on (use ON CONFLICT, or tx.transaction for a
   * savepoint): the transaction is aborted by then. A transaction that fails
   * on a serialization failure or deadlock is run again (a few times), so fn
   * must do nothing outside the database that it could not do twice.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Opens a transaction the caller commits or rolls back. With `script`
   * (statements whose values the caller inlined with sqlLiteral), runs it in
   * the same round trip as BEGIN and answers the rows of its first SELECT:
   * for the hottest transaction opening there is, the idempotency claim.
   */
  begin(): Promise<OpenTransaction>;
  begin<R>(script: string): Promise<OpenTransaction & { rows: R[] }>;
  /**
   * Runs fn as the holder of `tx`: until tx ends, a statement or transaction
   * on this Db from fn's async context (anything fn awaits or starts) throws
   * instead of waiting for, or running beside, the transaction it holds. For
   * the opener of a long-lived transaction (an idempotent request's).
   * db.transaction marks its fn so by itself.
   */
  holding<T>(tx: Tx, fn: () => T): T;
  /** A read-only query that shares its execution with identical ones asked at the same time (see sharedQuery); its rows are shared. */
  sharedRead<R>(text: string, params: unknown[]): Promise<readonly Readonly<R>[]>;
  /** Runs a script of several statements (simple protocol), outside any transaction. */
  exec(sql: string): Promise<void>;
  /** The pool's connections now (for the metrics scrape): PGlite's is a pool of one. */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  max: number;
  total: number;
  idle: number;
  waiting: number;
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
  // The holder check (Db.holding) is a programming guard: on in tests and development, off in production (see withTransactions).
  const holderCheck = config.env !== 'production';
  if (config.database.kind === 'postgres') return createPostgresDb(config.database.url!, { ...config.database, holderCheck });
  const dir = path.join(config.dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const release = lockDataDir(dir);
  try {
    const db = await createPgliteDb(dir, { holderCheck });
    const close = db.close;
    return { ...db, close: async () => { await close(); release(); } };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Prepared statements run on their generic plan from the first execution.
 * Under the default (auto) PostgreSQL plans a statement afresh for every
 * execution while the generic plan's estimate looks worse than the custom
 * ones, which it does for every statement that takes an array (the batched
 * lookups): planning was most of their cost (a book-context lookup 720 µs
 * planned each time, 190 µs on its generic plan). Our statements are
 * keyed lookups and keyset pages over indexes, which a generic plan serves
 * as well as a custom one.
 */
export const PLAN_CACHE_MODE = 'force_generic_plan';

const statementNames = new Map<string, string>();

/**
 * Statements with parameters are prepared once per connection under a name
 * derived from their text, so PostgreSQL parses and plans each hot query once
 * instead of on every call. Statements without parameters stay unnamed: some
 * are one-off scripts. Behind a transaction pooler every statement is
 * unnamed (`named` false): a name prepared on one server connection is
 * missing on the next, or already taken there by another client.
 */
function statement(text: string, params: unknown[] | undefined, named: boolean): pg.QueryConfig {
  if (!params || params.length === 0) return { text };
  if (!named) return { text, values: params };
  let name = statementNames.get(text);
  if (!name) {
    name = `mb_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (statementNames.size < 5000) statementNames.set(text, name);
  }
  return { name, text, values: params };
}

/** Our type parsers, on either backend: timestamps as ISO strings, int8 and numeric as numbers. */
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === TIMESTAMPTZ_OID) return parseTimestamp;
    if (oid === INT8_OID || oid === NUMERIC_OID) return parseInt8;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export interface PostgresOptions {
  poolSize?: number;
  schema?: string | null;
  /** 'transaction': PostgreSQL is reached through a pooler in transaction mode (see createPooledPostgresDb). */
  pooler?: 'none' | 'transaction';
  /** Whether a statement on the Db from code that holds an open transaction throws (default true; see withTransactions). */
  holderCheck?: boolean;
}

export function createPostgresDb(url: string, opts: PostgresOptions = {}): Db {
  if (opts.pooler === 'transaction') return createPooledPostgresDb(url, opts);
  const searchPath = opts.schema ? ` -c search_path=${opts.schema}` : '';
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    options: `-c TimeZone=UTC -c plan_cache_mode=${PLAN_CACHE_MODE}${searchPath}`,
    types,
  });
  return withTransactions(poolConnection('postgres', pool, () => pool.end(), DIRECT_SESSION), opts.holderCheck);
}

/**
 * TimeZone as a startup parameter of its own rather than in `options`:
 * PgBouncer refuses `options` ("unsupported startup parameter") but tracks
 * TimeZone, and sets it on every server connection it hands this client.
 */
class UtcClient extends pg.Client {
  getStartupConf(): Record<string, string> {
    const conf = (pg.Client.prototype as unknown as { getStartupConf(this: pg.Client): Record<string, string> }).getStartupConf.call(this);
    return { ...conf, TimeZone: 'UTC' };
  }
}

/**
 * PostgreSQL behind a pooler in transaction mode (PgBouncer's pool_mode =
 * transaction): each transaction, and each statement outside one, may run on
 * a different server connection, shared with other clients, so nothing here
 * relies on session state. Statements are unnamed (see `statement`); the
 * time zone travels as a startup parameter the pooler carries (UtcClient);
 * plan_cache_mode is left at its default, as an unnamed statement is planned
 * for its one execution anyway; DATABASE_SCHEMA is set with SET LOCAL in the
 * message that opens each transaction. A statement outside a transaction
 * needs the schema too: when the role's own search_path already leads to it
 * (ALTER ROLE … SET search_path, checked once) it is sent as it is, else it
 * runs in a transaction of its own (two more round trips). Locks are
 * transaction-level only (advisory locks included; pg-boss 10's too) and
 * nothing LISTENs, so the pooler may hand the connection on after every
 * transaction.
 */
function createPooledPostgresDb(url: string, opts: PostgresOptions): Db {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, Client: UtcClient, types });
  const schema = opts.schema ?? null;
  if (!schema) return withTransactions(poolConnection('postgres', pool, () => pool.end(), { named: false, opening: [], autocommitOpens: () => false }), opts.holderCheck);
  const opening = [`SET LOCAL search_path TO ${pg.escapeIdentifier(schema)}`];
  let roleLeadsToSchema: Promise<boolean> | undefined;
  const autocommitOpens = () => {
    roleLeadsToSchema ??= pool.query<{ s: string | null }>('SELECT current_schema() AS s').then((r) => r.rows[0].s === schema);
    roleLeadsToSchema.catch(() => (roleLeadsToSchema = undefined)); // asked again next time
    return roleLeadsToSchema.then((leads) => !leads);
  };
  return withTransactions(poolConnection('postgres', pool, () => pool.end(), { named: false, opening, autocommitOpens }), opts.holderCheck);
}

/**
 * PGlite's buffer pool. The default (postgresql.conf's 128 MB) is zeroed,
 * page by page, at every start: 0.3-0.6 s of an embedded start on a 2-core
 * machine, and 145 MB of memory before the first query. Pages the pool
 * misses are read from the data folder through the OS's page cache; the
 * bench's reads (1,000 books, 100,000 memories) ran as fast at 16 MB as at
 * 128 MB.
 */
const PGLITE_SHARED_BUFFERS = '32MB';

/**
 * The embedded database: PGlite in this process, reached through a pg Pool
 * of one connection (see PgliteConnection), so both backends share the code
 * below. One connection gives the isolation PGlite's single session needs:
 * a transaction holds it, and every other statement waits its turn.
 */
export async function createPgliteDb(dataDir?: string, opts: { holderCheck?: boolean } = {}): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PgliteConnection } = await import('./pglite-connection.js');
  const lite = await PGlite.create({ dataDir, startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`] });
  await lite.exec(`SET TIME ZONE 'UTC'; SET plan_cache_mode = ${PLAN_CACHE_MODE}`);
  const session = { parsedStatements: {}, connections: 0 };
  class PgliteClient extends pg.Client {
    constructor(config: pg.ClientConfig) {
      super({ ...config, connection: new PgliteConnection(lite, session) } as pg.ClientConfig);
    }
  }
  // Idle connections stay: the session, and the statements it prepared, outlive any one of them.
  const pool = new pg.Pool({ Client: PgliteClient as unknown as typeof pg.Client, max: 1, idleTimeoutMillis: 0, types });
  let closed = false;
  return withTransactions(
    poolConnection(
      'pglite',
      pool,
      async () => {
        if (closed) return;
        closed = true;
        await pool.end();
        await lite.close();
      },
      DIRECT_SESSION,
    ),
    opts.holderCheck,
  );
}

/**
 * Every transaction on PostgreSQL marks its start where any role can see it:
 * a shared advisory lock, held until it ends, whose second key is the second
 * the transaction began (now(), the very value its rows' updated_at take).
 * The Last-Modified watermark (db/pagination.ts) reads the oldest mark from
 * pg_locks, which, unlike pg_stat_activity's xact_start, no role is kept
 * from seeing: it stays right when the API and the workers log in as
 * different roles without pg_read_all_stats. The mark leaves in the same
 * message as BEGIN, so no statement of the transaction runs before it.
 * Shared locks never wait on each other, but each one is taken and released
 * under its lock-table partition's lock: the first key is one of
 * START_MARK_SPREAD classes, by backend, so that the transactions of one
 * second are spread over several partitions instead of queueing on one.
 * Transaction-level, so it holds behind a transaction pooler too.
 */
export const START_MARK_CLASS = 1835169650; // 'mbwr'
export const START_MARK_SPREAD = 16;
/** The marks' second keys count seconds from this instant (an int4 holds them until 2068). */
export const START_MARK_EPOCH = '2000-01-01 00:00:00+00';
const START_MARK =
  `SELECT pg_advisory_xact_lock_shared(${START_MARK_CLASS} + pg_backend_pid() % ${START_MARK_SPREAD}, ` +
  `floor(extract(epoch FROM now() - timestamptz '${START_MARK_EPOCH}'))::int)`;

/** What a connection may keep between transactions, and what each transaction must set itself. */
interface SessionRules {
  /** Statements named and prepared once per connection (see `statement`). */
  named: boolean;
  /** Statements sent in the same message as each BEGIN (SET LOCAL settings). */
  opening: string[];
  /** Whether a statement outside a transaction needs `opening` too: it then runs in a transaction of its own. */
  autocommitOpens(): boolean | Promise<boolean>;
}

/** A connection of our own (direct PostgreSQL, PGlite): its session settings hold for its life. */
const DIRECT_SESSION: SessionRules = { named: true, opening: [], autocommitOpens: () => false };

function poolConnection(kind: Db['kind'], pool: pg.Pool, close: () => Promise<void>, session: SessionRules): Connection {
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const opening = session.opening.length ? `; ${session.opening.join('; ')}` : '';
  // What opens a transaction of ours: BEGIN, the start mark (PostgreSQL), the settings; one message.
  const begin = ['BEGIN', ...(kind === 'postgres' ? [START_MARK] : []), ...session.opening];
  /** One statement in a transaction of its own that opens with `opening`; a failure rolls it back. */
  async function openedStatement(query: pg.QueryConfig): Promise<pg.QueryResult> {
    const client = await pool.connect();
    const ignore = () => {}; // a lost connection fails the statement below instead
    client.on('error', ignore);
    let broken: Error | undefined;
    try {
      await client.query(`BEGIN${opening}`);
      const res = await client.query(query);
      await client.query('COMMIT');
      return res;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      client.off('error', ignore);
      client.release(broken);
    }
  }
  return {
    kind,
    async query<R>(text: string, params?: unknown[]) {
      const stmt = statement(text, params, session.named);
      const opens = session.autocommitOpens();
      const res = opens !== false && (await opens) ? await openedStatement(stmt) : await pool.query(stmt);
      return res.rows as R[];
    },
    async begin<R>(script?: string) {
      const client = await pool.connect();
      let open = true;
      // The pool stops listening while a connection is checked out; a connection lost mid-transaction
      // must not become an uncaught 'error' that ends the process. Its next statement fails instead.
      let lost: Error | undefined;
      const onError = (err: Error) => (lost = err);
      client.on('error', onError);
      // A connection whose transaction could not be ended cleanly is destroyed, never reused.
      const end = async (sql: 'COMMIT' | 'ROLLBACK', finalScript?: string) => {
        if (!open) return;
        open = false;
        if (lost) {
          client.off('error', onError);
          client.release(lost);
          if (sql === 'COMMIT') throw lost;
          return;
        }
        // The listener stays until the connection is handed back: a connection lost during the COMMIT itself
        // (the database killed) emits 'error' as well as failing the statement, and unheard it would end the process.
        try {
          // One simple-protocol message; a failing statement of the script skips the COMMIT after it.
          const results: pg.QueryResult | pg.QueryResult[] = await client.query(finalScript ? `${finalScript}; COMMIT` : sql);
          const res = Array.isArray(results) ? results[results.length - 1] : results;
          // COMMIT of a transaction a failed statement aborted answers ROLLBACK, not an error: it must not pass for a commit.
          if (sql === 'COMMIT' && res.command === 'ROLLBACK') throw new Error('the transaction was aborted by an earlier error and rolled back');
          client.off('error', onError);
          client.release(lost);
        } catch (err) {
          client.off('error', onError);
          client.release((lost ?? err) as Error);
          if (sql === 'COMMIT') throw err;
        }
      };
      let rows: R[] = [];
      const lastSteps: (() => Promise<void>)[] = [];
      let savepoints = 0;
      try {
        // One simple-protocol message: BEGIN, its start mark and settings, and the script leave and answer together.
        const results: pg.QueryResult | pg.QueryResult[] = await client.query([...begin, ...(script ? [script] : [])].join('; '));
        if (script) rows = ((Array.isArray(results) ? results : [results]).slice(begin.length).find((r) => r.command === 'SELECT')?.rows ?? []) as R[];
      } catch (err) {
        client.off('error', onError);
        client.release(err as Error);
        throw err;
      }
      return {
        rows,
        get open() {
          return open;
        },
        async query<R>(text: string, params?: unknown[]) {
          mustBeOpen(open);
          return (await client.query(statement(text, params, session.named))).rows as R[];
        },
        async exec(sql: string) {
          mustBeOpen(open);
          await client.query(sql);
        },
        beforeCommit(step: () => Promise<void>) {
          mustBeOpen(open);
          lastSteps.push(step);
        },
        async commit(finalScript?: string) {
          if (!open) return;
          for (const step of lastSteps.splice(0)) await step();
          await end('COMMIT', finalScript);
        },
        async rollbackToSavepoint(name: string) {
          mustBeOpen(open);
          await client.query(`ROLLBACK TO SAVEPOINT ${pg.escapeIdentifier(name)}`);
          lastSteps.length = 0;
        },
        async transaction<T>(this: Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
          mustBeOpen(open);
          const name = `sp_${++savepoints}`;
          const stepsBefore = lastSteps.length;
          await client.query(`SAVEPOINT ${name}`);
          try {
            const result = await fn(this);
            await client.query(`RELEASE SAVEPOINT ${name}`);
            return result;
          } catch (err) {
            if (open && !lost) {
              await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
              lastSteps.length = stepsBefore; // the undone work's last steps go with it
            }
            throw err;
          }
        },
        rollback: () => end('ROLLBACK'),
      };
    },
    async exec(sql: string) {
      // A script of several statements is one implicit transaction, where SET LOCAL holds until its end.
      await pool.query((await session.autocommitOpens()) ? `${session.opening.join('; ')}; ${sql}` : sql);
    },
    poolStats: () => ({ max: pool.options.max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close,
  };
}

/** A statement sent on an ended transaction would run on a connection someone else now holds. */
function mustBeOpen(open: boolean) {
  if (!open) throw new Error('the transaction has already ended');
}

interface Connection {
  kind: Db['kind'];
  query<R>(text: string, params?: unknown[]): Promise<R[]>;
  begin<R>(script?: string): Promise<OpenTransaction & { rows: R[] }>;
  exec(sql: string): Promise<void>;
  poolStats(): PoolStats;
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
    throw translateDbError(err) ?? err;
  }
}

function translating<Q extends Tx>(q: Q): Q {
  const query = q.query.bind(q);
  const exec = q.exec.bind(q);
  const savepoint = q.transaction;
  const commit = 'commit' in q ? (q as unknown as OpenTransaction).commit.bind(q) : undefined;
  const wrapped: Q = Object.assign(Object.create(q) as Q, {
    query: <R>(text: string, params?: unknown[]) => translated(query<R>(text, params)),
    exec: (sql: string) => translated(exec(sql)),
    // The savepoint hands fn this same translating handle.
    transaction: <T>(fn: (tx: Tx) => Promise<T>) => translated(savepoint.call(wrapped, fn) as Promise<T>),
    ...(commit ? { commit: (finalScript?: string) => translated(commit(finalScript)) } : {}),
  });
  return wrapped;
}

/** The holder check switched off: nothing is held, fn runs as it is. */
interface Holder {
  getStore(): (Tx & { readonly open?: boolean }) | undefined;
  run<R>(tx: Tx, fn: () => R): R;
}
const NO_HOLDER: Holder = { getStore: () => undefined, run: (_tx, fn) => fn() };

/**
 * The transaction behaviour both backends share: transactions of their own,
 * retried on serialization failures and deadlocks, and the holder check
 * (see Db.holding), the same on both.
 */
function withTransactions(conn: Connection, holderCheck = true): Db {
  // Which open transaction this async context holds, if any: only ever read to refuse a statement.
  // A programming guard, off in production: on Node 20 one AsyncLocalStorage entered anywhere turns on
  // async hooks for every promise of the process, a cost each request paid (issue 44). Tests and
  // development run with it, so a statement that would wait for its own transaction still fails there.
  const held: Holder = holderCheck ? new AsyncLocalStorage<Tx & { readonly open?: boolean }>() : NO_HOLDER;
  const shared = createSharedReads((text, params) => translated(conn.query(text, params)));
  const mustHoldNone = () => {
    const tx = held.getStore();
    if (tx?.open) {
      throw new Error(
        'a statement on the Db from code that holds an open transaction: pass that transaction (tx) down instead ' +
          '(on PGlite it would wait for it for ever; on PostgreSQL it would run outside it)',
      );
    }
  };

  async function transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    mustHoldNone();
    // Tracing on: the transaction is one span (its statements are not spans of their own), retries included.
    if (tracingInSpan()) return inSpan('transaction', { kind: SpanKind.CLIENT, attributes: dbSpanAttributes(conn.kind, 'transaction') }, () => transactionRun(fn));
    return transactionRun(fn);
  }

  async function transactionRun<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const tx = translating(await translated(conn.begin()));
      try {
        const result = await held.run(tx, () => fn(tx));
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
      mustHoldNone();
      if (tracingInSpan()) return statementSpan(conn.kind, text, () => translated(conn.query<R>(text, params)));
      return translated(conn.query<R>(text, params));
    },
    transaction,
    begin: (async (script?: string) => {
      mustHoldNone();
      // Tracing on: an opened transaction is one span, from BEGIN to its COMMIT or ROLLBACK.
      const span = tracingInSpan() ? startSpan('transaction', { kind: SpanKind.CLIENT, attributes: dbSpanAttributes(conn.kind, 'transaction') }) : undefined;
      let tx: OpenTransaction & { rows: unknown[] };
      try {
        tx = await translated(conn.begin(script));
      } catch (err) {
        if (span) {
          failSpan(span, err);
          span.end();
        }
        throw err;
      }
      const opened = Object.assign(translating(tx), { rows: tx.rows });
      return span ? endingSpan(opened, span) : opened;
    }) as Db['begin'],
    holding: (tx, fn) => held.run(tx, fn),
    sharedRead<R>(text: string, params: unknown[]) {
      mustHoldNone();
      if (tracingInSpan()) return statementSpan(conn.kind, text, () => shared<R>(text, params));
      return shared<R>(text, params);
    },
    exec: (sql) => {
      mustHoldNone();
      if (tracingInSpan()) return inSpan('exec', { kind: SpanKind.CLIENT, attributes: dbSpanAttributes(conn.kind, 'exec') }, () => translated(conn.exec(sql)));
      return translated(conn.exec(sql));
    },
    poolStats: () => conn.poolStats(),
    close: () => conn.close(),
  };
}

/** Database span attributes (OpenTelemetry semantic conventions; PGlite is PostgreSQL too). Never a statement's parameters. */
function dbSpanAttributes(kind: Db['kind'], operation: string, text?: string) {
  return {
    'db.system': 'postgresql',
    'db.system.name': 'postgresql',
    'db.operation.name': operation,
    'memorybook.db.backend': kind,
    // The statement as written (its values are $n parameters); a quoted literal in it is replaced by '?'.
    ...(text !== undefined ? { 'db.query.text': text.replace(/'(?:[^']|'')*'/g, "'?'").replace(/\s+/g, ' ').trim().slice(0, 1000) } : {}),
  };
}

/** One autocommitted statement's span, named by its first keyword (SELECT, WITH, UPDATE…). */
function statementSpan<T>(kind: Db['kind'], text: string, run: () => Promise<T>): Promise<T> {
  const operation = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'statement';
  return inSpan(operation, { kind: SpanKind.CLIENT, attributes: dbSpanAttributes(kind, operation, text) }, run);
}

/** An opened transaction whose span ends with its COMMIT or ROLLBACK (the first of them). */
function endingSpan<T extends OpenTransaction>(tx: T, span: Span): T {
  let ended = false;
  const end = (err?: unknown) => {
    if (ended) return;
    ended = true;
    if (err !== undefined) failSpan(span, err);
    span.end();
  };
  const commit = tx.commit.bind(tx);
  const rollback = tx.rollback.bind(tx);
  return Object.assign(tx, {
    commit: (finalScript?: string) =>
      commit(finalScript).then(
        () => end(),
        (err: unknown) => {
          end(err);
          throw err;
        },
      ),
    rollback: () =>
      rollback().finally(() => {
        if (!ended) span.setAttribute('memorybook.db.rolled_back', true);
        end();
      }),
  });
}

/** A value written into SQL text as a literal (see Db.begin's script): quoted and escaped, or a plain number. */
export function sqlLiteral(value: string | number | bigint | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('sqlLiteral: not a finite number');
    return String(value);
  }
  return pg.escapeLiteral(value);
}

/** First row or undefined. */
export async function one<R>(q: Queryable, text: string, params?: unknown[]): Promise<R | undefined> {
  const rows = await q.query<R>(text, params);
  return rows[0];
}
