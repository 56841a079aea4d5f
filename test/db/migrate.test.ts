import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDb, type Db } from '../../src/db/client.js';
import { pgErrorCode } from '../../src/db/pg-errors.js';
import { migrate } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase, TEST_DATABASE_POOLER } from '../helpers/test-db.js';

let database: TestDatabase;
const folders: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** A migrations folder holding these files. */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'memorybook-migrations-'));
  folders.push(dir);
  for (const [name, sql] of Object.entries(files)) writeFileSync(path.join(dir, name), sql);
  return dir;
}

/** Fails instead of hanging: the old hand-written splitter looped for ever on some inputs. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const applied = async (id: string) => (await database.db.query('SELECT 1 FROM schema_migrations WHERE id = $1', [id])).length === 1;

describe('migrate', () => {
  it('runs files the server parses: quotes and semicolons inside comments, strings and dollar-quoted bodies', async () => {
    const dir = folder({
      '9001_comments.sql': `/* don't */ SELECT 1; SELECT 2;
        /* a; b */ CREATE TABLE m_notes (body text NOT NULL);
        -- it's a line comment; with a semicolon
        INSERT INTO m_notes VALUES ('semi;colon'), ('it''s');
        /* nested /* comments; */ still one comment */
        INSERT INTO m_notes VALUES ($tag$dollar; 'quoted'$tag$);`,
      '9002_function.sql': `CREATE FUNCTION m_count_notes() RETURNS int LANGUAGE plpgsql AS $$
        DECLARE n int;
        BEGIN
          SELECT count(*) INTO n FROM m_notes;
          RETURN n;
        END;
        $$;`,
    });
    expect(await within(10_000, migrate(database.db, { dir }))).toEqual(['9001_comments', '9002_function']);

    const notes = await database.db.query<{ body: string }>('SELECT body FROM m_notes ORDER BY body');
    expect(notes.map((n) => n.body)).toEqual(["dollar; 'quoted'", "it's", 'semi;colon']);
    const [{ n }] = await database.db.query<{ n: number }>('SELECT m_count_notes() AS n');
    expect(n).toBe(3);

    // Applied once: a second run finds nothing to do.
    expect(await migrate(database.db, { dir })).toEqual([]);
  });

  it('fails fast on an unterminated quote with the database syntax error, and applies none of that file', async () => {
    const dir = folder({
      '9101_fine.sql': 'CREATE TABLE m_fine (id int);',
      '9102_broken.sql': "CREATE TABLE m_half (id int);\nSELECT 'never closed;\n",
      '9103_after.sql': 'CREATE TABLE m_after (id int);',
    });
    const failure = await within(10_000, migrate(database.db, { dir })).catch((err: unknown) => err);
    expect(pgErrorCode(failure)).toBe('42601'); // syntax_error
    expect(String((failure as Error).message)).toMatch(/unterminated quoted string/);

    // The file before it is in; nothing of the broken file, and nothing after it, ran.
    expect(await applied('9101_fine')).toBe(true);
    expect(await applied('9102_broken')).toBe(false);
    expect(await applied('9103_after')).toBe(false);
    const tables = await database.db.query<{ name: string | null }>(`SELECT to_regclass('m_half')::text AS name UNION ALL SELECT to_regclass('m_after')::text`);
    expect(tables).toEqual([{ name: null }, { name: null }]);

    // No connection was left inside an aborted transaction: the database answers, and a fixed file applies.
    writeFileSync(path.join(dir, '9102_broken.sql'), "CREATE TABLE m_half (id int);\nSELECT 'closed;';\n");
    expect(await within(10_000, migrate(database.db, { dir }))).toEqual(['9102_broken', '9103_after']);
  });

  it('rolls back a file whose statement fails part-way', async () => {
    const dir = folder({ '9201_partial.sql': 'CREATE TABLE m_partial (id int PRIMARY KEY); INSERT INTO m_partial VALUES (1), (1);' });
    const failure = await within(10_000, migrate(database.db, { dir })).catch((err: unknown) => err);
    expect(pgErrorCode(failure)).toBe('23505');
    expect(await applied('9201_partial')).toBe(false);
    const [{ name }] = await database.db.query<{ name: string | null }>(`SELECT to_regclass('m_partial')::text AS name`);
    expect(name).toBeNull();
  });

  it('applies a new file exactly once when two processes migrate together', async () => {
    const dir = folder({ '9301_first.sql': 'CREATE TABLE m_once (n int); INSERT INTO m_once VALUES (1);' });
    expect(await migrate(database.db, { dir })).toEqual(['9301_first']);
    writeFileSync(path.join(dir, '9302_second.sql'), 'INSERT INTO m_once VALUES (2);');
    writeFileSync(path.join(dir, '9303_third.sql'), 'INSERT INTO m_once VALUES (3);');
    // Another process: its own pool on PostgreSQL; PGlite is one connection, which runs the two in turn.
    const other = database.url ? createPostgresDb(database.url, { schema: database.schema, poolSize: 2, pooler: TEST_DATABASE_POOLER }) : database.db;
    try {
      const runs = await Promise.all([migrate(database.db, { dir }), migrate(other, { dir }), migrate(database.db, { dir })]);
      expect(runs.flat().sort()).toEqual(['9302_second', '9303_third']);
    } finally {
      if (other !== database.db) await other.close();
    }
    const rows = await database.db.query<{ n: number }>('SELECT n FROM m_once ORDER BY n');
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
  });

  it('with nothing pending only reads: no lock, no transaction, no DDL', async () => {
    const dir = folder({ '9401_table.sql': 'CREATE TABLE m_read_only (n int);' });
    await migrate(database.db, { dir });
    const statements: string[] = [];
    const watched: Db = {
      ...database.db,
      query: (text, params) => (statements.push(text), database.db.query(text, params)),
      exec: (sql) => (statements.push(sql), database.db.exec(sql)),
      transaction: (fn) => (statements.push('BEGIN'), database.db.transaction(fn)),
    };
    expect(await migrate(watched, { dir })).toEqual([]);
    expect(statements).toHaveLength(2);
    expect(statements.join('\n')).not.toMatch(/BEGIN|lock|CREATE|INSERT/i);
  });
});
