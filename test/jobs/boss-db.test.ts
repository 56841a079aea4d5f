import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgErrorCode } from '../../src/db/pg-errors.js';
import { createBossDb } from '../../src/jobs/boss-db.js';
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
