import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, OpenTransaction } from '../../src/db/client.js';
import { isRetryableTransactionError, pgErrorCode, translatePgError } from '../../src/db/pg-errors.js';
import { AppError } from '../../src/errors.js';
import { errorHandler } from '../../src/http/error-handler.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/test-db.js';

let database: TestDatabase;
let db: Db;
const onPostgres = Boolean(TEST_DATABASE_URL);

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await db.exec(`
    CREATE TABLE pe_parent (id int PRIMARY KEY, email text NOT NULL CONSTRAINT pe_parent_email_key UNIQUE,
      age int CONSTRAINT pe_parent_age_check CHECK (age >= 0));
    CREATE TABLE pe_child (parent_id int NOT NULL CONSTRAINT pe_child_parent_fkey REFERENCES pe_parent (id));
    INSERT INTO pe_parent (id, email, age) VALUES (1, 'secret@example.test', 30), (2, 'other@example.test', 40);`);
});
afterAll(async () => {
  await database.drop();
});

/** The error a real statement raises. */
async function errorOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('the statement did not fail');
}

/** What goes out to the client: nothing of the row's values. */
function expectNoValues(err: AppError, ...values: string[]) {
  const wire = JSON.stringify({ code: err.code, message: err.message, details: err.details });
  for (const v of values) expect(wire).not.toContain(v);
}

describe('translatePgError', () => {
  it('a unique violation is 409 conflict naming the constraint, never the value', async () => {
    const err = translatePgError(await errorOf(() => db.query(`INSERT INTO pe_parent (id, email) VALUES (3, 'secret@example.test')`)));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'conflict', status: 409, details: { constraint: 'pe_parent_email_key' }, headers: {} });
    expectNoValues(err!, 'secret@example.test');
  });

  it('a foreign key violation is 409 conflict', async () => {
    const err = translatePgError(await errorOf(() => db.query('INSERT INTO pe_child (parent_id) VALUES (404)')));
    expect(err).toMatchObject({ code: 'conflict', status: 409, details: { constraint: 'pe_child_parent_fkey' } });
    expectNoValues(err!, '404');
  });

  it('a check violation and values the column type refuses are 400 validation_failed, without echoing them', async () => {
    const check = translatePgError(await errorOf(() => db.query('UPDATE pe_parent SET age = -7 WHERE id = 1')));
    expect(check).toMatchObject({ code: 'validation_failed', status: 400, details: { constraint: 'pe_parent_age_check' } });
    expectNoValues(check!, '-7');

    const notANumber = translatePgError(await errorOf(() => db.query('SELECT $1::int', ['twelve-ish'])));
    expect(notANumber).toMatchObject({ code: 'validation_failed', status: 400, details: null });
    expectNoValues(notANumber!, 'twelve-ish');

    const badUtf8 = translatePgError(await errorOf(() => db.query(`SELECT convert_from('\\xc3ff'::bytea, 'UTF8')`)));
    expect(badUtf8).toMatchObject({ code: 'validation_failed', status: 400 });
    expectNoValues(badUtf8!, '0xc3', '0xff');
  });

  // PGlite answers this conversion with no rows instead of an error (and its connection misbehaves after).
  it.runIf(onPostgres)('a character the target encoding lacks is 400 validation_failed', async () => {
    const err = translatePgError(await errorOf(() => db.query(`SELECT convert_to('€', 'LATIN1')`)));
    expect(err).toMatchObject({ code: 'validation_failed', status: 400 });
  });

  // PGlite runs in one thread without timer signals: it never enforces statement_timeout or lock_timeout.
  it.runIf(onPostgres)('a statement timeout and a lock timeout are 503 service_unavailable with Retry-After: 1', async () => {
    const slow = await errorOf(() =>
      db.transaction(async (tx) => {
        await tx.query('SET LOCAL statement_timeout = 10');
        await tx.query('SELECT pg_sleep(1)');
      }),
    );
    expect(translatePgError(slow)).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'retry-after': '1' } });

    const holder = await db.begin();
    try {
      await holder.query('SELECT 1 FROM pe_parent WHERE id = 1 FOR UPDATE');
      const locked = await errorOf(() =>
        db.transaction(async (tx) => {
          await tx.query(`SET LOCAL lock_timeout = '20ms'`);
          await tx.query('UPDATE pe_parent SET age = 31 WHERE id = 1');
        }),
      );
      expect(translatePgError(locked)).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'retry-after': '1' } });
      expect(isRetryableTransactionError(locked)).toBe(false);
    } finally {
      await holder.rollback();
    }
  });

  it.runIf(onPostgres)('a deadlock between two connections is 503 with Retry-After: 1, and retryable', async () => {
    const a = await db.begin();
    const b = await db.begin();
    const outcomes: unknown[] = [];
    const settle = async (tx: OpenTransaction, run: Promise<unknown>) => {
      try {
        await run;
        await tx.commit();
      } catch (err) {
        outcomes.push(err);
        await tx.rollback();
      }
    };
    try {
      await a.query('UPDATE pe_parent SET age = age + 1 WHERE id = 1');
      await b.query('UPDATE pe_parent SET age = age + 1 WHERE id = 2');
      // Each now waits for the other; the server breaks the cycle by failing one of them.
      await Promise.all([settle(a, a.query('UPDATE pe_parent SET age = age + 1 WHERE id = 2')), settle(b, b.query('UPDATE pe_parent SET age = age + 1 WHERE id = 1'))]);
    } finally {
      await a.rollback();
      await b.rollback();
    }
    expect(outcomes).toHaveLength(1);
    // The Db translated it on the way out; the database's own error is its cause.
    expect(pgErrorCode(outcomes[0])).toBe('40P01');
    expect(translatePgError(outcomes[0])).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'retry-after': '1' } });
    expect(isRetryableTransactionError(outcomes[0])).toBe(true);
  });

  it.runIf(onPostgres)('a serialization failure is 503 with Retry-After: 1, and retryable', async () => {
    // The Db's transactions read committed (their start mark takes the first snapshot, see db/client.ts):
    // a repeatable-read one, the kind that fails so, is opened on a connection of the test's own.
    const reader = new pg.Client({ connectionString: TEST_DATABASE_URL!, options: `-c search_path=${database.schema}` });
    await reader.connect();
    try {
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await reader.query('SELECT age FROM pe_parent WHERE id = 2');
      await db.query('UPDATE pe_parent SET age = age + 1 WHERE id = 2');
      const err = await errorOf(() => reader.query('UPDATE pe_parent SET age = 0 WHERE id = 2'));
      expect(pgErrorCode(err)).toBe('40001');
      expect(translatePgError(err)).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'retry-after': '1' } });
      expect(isRetryableTransactionError(err)).toBe(true);
    } finally {
      await reader.end();
    }
  });

  it('leaves our own mistakes alone: a syntax error, a missing table, a plain Error', async () => {
    expect(translatePgError(await errorOf(() => db.query('SELEC 1')))).toBeUndefined();
    expect(translatePgError(await errorOf(() => db.query('SELECT * FROM pe_nowhere')))).toBeUndefined();
    expect(translatePgError(new Error('boom'))).toBeUndefined();
    expect(translatePgError(undefined)).toBeUndefined();
    expect(isRetryableTransactionError(await errorOf(() => db.query(`INSERT INTO pe_parent (id, email) VALUES (1, 'x')`)))).toBe(false);
  });
});

describe('the error handler', () => {
  it('answers a database error no service translated with its envelope and headers, not a 500', async () => {
    const app = Fastify({ logger: false });
    app.setErrorHandler(errorHandler);
    app.get('/dup', async () => db.query(`INSERT INTO pe_parent (id, email) VALUES (9, 'secret@example.test')`));
    app.get('/mistake', async () => db.query('SELECT * FROM pe_nowhere'));
    try {
      const dup = await app.inject({ method: 'GET', url: '/dup' });
      expect(dup.statusCode).toBe(409);
      expect(dup.json()).toEqual({ code: 'conflict', message: expect.any(String), details: { constraint: 'pe_parent_email_key' }, request_id: expect.any(String) });
      expect(dup.body).not.toContain('secret@example.test');

      const mistake = await app.inject({ method: 'GET', url: '/mistake' });
      expect(mistake.statusCode).toBe(500);
      expect(mistake.json()).toMatchObject({ code: 'internal_error', details: null });
      expect(mistake.body).not.toContain('pe_nowhere');
    } finally {
      await app.close();
    }
  });

  it.runIf(onPostgres)('answers a statement timeout 503 with Retry-After: 1', async () => {
    const app = Fastify({ logger: false });
    app.setErrorHandler(errorHandler);
    app.get('/slow', async () =>
      db.transaction(async (tx) => {
        await tx.query('SET LOCAL statement_timeout = 10');
        return tx.query('SELECT pg_sleep(1)');
      }),
    );
    try {
      const slow = await app.inject({ method: 'GET', url: '/slow' });
      expect(slow.statusCode).toBe(503);
      expect(slow.headers['retry-after']).toBe('1');
      expect(slow.json()).toMatchObject({ code: 'service_unavailable', details: null });
    } finally {
      await app.close();
    }
  });
});
