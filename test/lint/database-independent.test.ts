/**
 * The files npm test runs on PGlite only (test/helpers/database-independent.ts)
 * are held to never opening a database: this file is on the list itself, so
 * each way of opening one throws here, naming the list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPgliteDb } from '../../src/db/client.js';
import { DATABASE_INDEPENDENT, isDatabaseIndependent } from '../helpers/database-independent.js';
import { createTestDatabase } from '../helpers/test-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REFUSED = /test\/lint\/database-independent\.test\.ts is listed as database-independent/;

function testFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${dir}/${f.split(path.sep).join('/')}`);
}

describe('a database-independent file', () => {
  it('is refused a test database', async () => {
    await expect(createTestDatabase()).rejects.toThrow(REFUSED);
  });

  it('is refused a PostgreSQL connection (before any server is asked)', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    await expect(client.connect()).rejects.toThrow(REFUSED);
  });

  it('is refused an embedded PGlite', async () => {
    await expect(createPgliteDb()).rejects.toThrow(REFUSED);
  });
});

describe('the list of database-independent files', () => {
  const all = [...testFiles('src'), ...testFiles('test')];
  const listed = all.filter(isDatabaseIndependent);

  it('names only test files that exist', () => {
    for (const entry of DATABASE_INDEPENDENT) expect(all.some((f) => (entry.endsWith('/') ? f.startsWith(entry) : f === entry)), entry).toBe(true);
  });

  it('holds no file that builds an app, a test database or a server', () => {
    const reaching = /helpers\/(build-test-app|test-db|spawn-server|private-postgres)\.js|client-setup\.js|src\/(app|db\/client)\.js/;
    const offenders = listed.filter((f) => f !== 'test/lint/database-independent.test.ts' && reaching.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
