import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config/config.js';
import { lockDataDir } from './dir-lock.js';

/** Anything that runs one parameterised SQL statement: the database itself or a transaction. */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction; fn must use the handle it is given, never the Db itself. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
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

  const db: Db = {
    kind: 'postgres',
    async query<R>(text: string, params?: unknown[]) {
      const res = await pool.query({ text, values: params as unknown[] });
      return res.rows as R[];
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          async query<R>(text: string, params?: unknown[]) {
            return (await client.query({ text, values: params as unknown[] })).rows as R[];
          },
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
    },
  };
  return db;
}

export async function createPgliteDb(dataDir?: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const lite = await PGlite.create({
    dataDir,
    parsers: { [TIMESTAMPTZ_OID]: parseTimestamp, [INT8_OID]: parseInt8, [NUMERIC_OID]: parseInt8 },
  });
  await lite.exec(`SET TIME ZONE 'UTC'`);
  let closed = false;
  return {
    kind: 'pglite',
    async query<R>(text: string, params?: unknown[]) {
      return (await lite.query<R>(text, params)).rows;
    },
    // PGlite is one connection: its own mutex makes every other query wait
    // while a transaction is open, which gives the same isolation as a pool.
    async transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      return lite.transaction(async (t) =>
        fn({
          async query<R>(text: string, params?: unknown[]) {
            return (await t.query<R>(text, params)).rows;
          },
        }),
      );
    },
    async exec(sql: string) {
      await lite.exec(sql);
    },
    async close() {
      if (closed) return;
      closed = true;
      await lite.close();
    },
  };
}

/** First row or undefined. */
export async function one<R>(q: Queryable, text: string, params?: unknown[]): Promise<R | undefined> {
  const rows = await q.query<R>(text, params);
  return rows[0];
}

/** Translates Postgres errors the API can explain (SQLSTATE) into a short tag. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';
