import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgErrorCode } from '../../src/db/pg-errors.js';
import { readFileSync } from 'node:fs';
import { BOSS_COLUMNS, BOSS_JOB_STATES, bossTables, createBossDb, PG_BOSS_VERSION } from '../../src/jobs/boss-db.js';
import { installJobQueues } from '../../src/jobs/queue.js';
import { testConfig } from '../helpers/build-test-app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.exec('CREATE TABLE boss_probe (note text NOT NULL)');
});
afterAll(async () => {
  await database.drop();
});

/** Shaped like pg-boss 10's plans.locked(): BEGIN; SET LOCAL …; statements; COMMIT; */
const script = (...statements: string[]) => `
    BEGIN;
    SET LOCAL lock_timeout = '30s';
    ${statements.join(';\n    ')};
    COMMIT;
  `;

describe('pg-boss scripts on our Db', () => {
  it('runs a BEGIN … COMMIT script whole on one connection, in one transaction', async () => {
    const boss = createBossDb(database.db);
    await boss.executeSql(
      script(
        `SET LOCAL application_name = 'boss-script'`,
        `INSERT INTO boss_probe SELECT current_setting('application_name') || '; ' || current_setting('lock_timeout')`,
        `/* don't; split */ INSERT INTO boss_probe VALUES ($$a; 'b'$$)`,
      ),
    );
    const notes = await database.db.query<{ note: string }>('SELECT note FROM boss_probe ORDER BY note');
    expect(notes.map((n) => n.note)).toEqual(["a; 'b'", 'boss-script; 30s']);
    // SET LOCAL ended with the transaction.
    const [{ lock_timeout }] = await database.db.query<{ lock_timeout: string }>(`SELECT current_setting('lock_timeout') AS lock_timeout`);
    expect(lock_timeout).toBe('0');
  });

  it('leaves nothing half-done when a statement fails, and no connection stuck in an aborted transaction', async () => {
    const boss = createBossDb(database.db);
    await database.db.exec('TRUNCATE boss_probe');
    const failure = await boss.executeSql(script(`INSERT INTO boss_probe VALUES ('first')`, 'SELECT 1 / 0', `INSERT INTO boss_probe VALUES ('never')`)).catch((e: unknown) => e);
    expect(pgErrorCode(failure)).toBe('22012'); // division_by_zero
    expect(await database.db.query('SELECT note FROM boss_probe')).toEqual([]);

    // Every pooled connection answers (one left in an aborted transaction would say 25P02).
    const answers = await Promise.all(Array.from({ length: 16 }, () => boss.executeSql('SELECT 1 AS one')));
    expect(answers.every((a) => a.rows[0].one === 1)).toBe(true);
    await boss.drain();
  });

  it('passes single statements through with their rows, and refuses a script that never commits', async () => {
    const boss = createBossDb(database.db);
    expect((await boss.executeSql('SELECT $1::int + 1 AS two', [1])).rows).toEqual([{ two: 2 }]);
    expect((await boss.executeSql('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
    await expect(boss.executeSql(`BEGIN; INSERT INTO boss_probe VALUES ('x');`)).rejects.toThrow(/does not end in COMMIT/);
    expect(await database.db.query(`SELECT note FROM boss_probe WHERE note = 'x'`)).toEqual([]);
  });
});

/**
 * Our statements on pg-boss's private tables (src/jobs/boss-db.ts,
 * bossTables) are written against one version of its schema. This fails when
 * another version is installed, or when the installed tables change under
 * the columns and states the statements rely on.
 */
describe("pg-boss's tables, behind one door", () => {
  const schema = `boss_pin_${Math.random().toString(36).slice(2, 10)}`;
  beforeAll(async () => {
    await installJobQueues({ db: database.db, config: testConfig(), schema, jobs: [] });
  });
  afterAll(async () => {
    await database.db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it('is the pg-boss version the statements were written against', () => {
    const installed = JSON.parse(readFileSync(new URL('../../node_modules/pg-boss/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(installed.version, 'pg-boss changed: check the statements in bossTables against its plans.js, then move PG_BOSS_VERSION').toBe(PG_BOSS_VERSION);
  });

  it('has every table and column the statements use, and the job states in the order they compare them', async () => {
    for (const [table, columns] of Object.entries(BOSS_COLUMNS)) {
      const rows = await database.db.query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
        [schema, table],
      );
      const present = new Set(rows.map((r) => r.column_name));
      expect(columns.filter((c) => !present.has(c)), `${schema}.${table}`).toEqual([]);
    }
    const states = await database.db.query<{ label: string }>(
      `SELECT e.enumlabel AS label FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid JOIN pg_namespace n ON n.oid = t.typnamespace
       WHERE n.nspname = $1 AND t.typname = 'job_state' ORDER BY e.enumsortorder`,
      [schema],
    );
    expect(states.map((s) => s.label)).toEqual([...BOSS_JOB_STATES]);
  });

  it('runs every statement of the door on the installed tables', async () => {
    const tables = bossTables(schema);
    expect(await tables.installed(database.db)).toBe(true);
    expect(await bossTables('no_such_boss').installed(database.db)).toBe(false);
    const job = { name: 'no-such-job', id: '00000000-0000-4000-8000-000000000000', retryCount: 0 };
    expect(await tables.renewLease(database.db, job, 30)).toBe(false);
    expect(await tables.releaseUncounted(database.db, job, { message: 'stopped' })).toBe(false);
    expect(await tables.lapsedRuns(database.db, [job.name])).toEqual([]);
    await tables.retryNow(database.db, job);
    expect(await tables.hasUnfinished(database.db, job.name, 'k')).toBe(false);
    expect(await tables.depths(database.db)).toEqual([]);
    expect(await tables.failedJobs(database.db, { name: null, limit: 10 })).toEqual([]);
  });
});
