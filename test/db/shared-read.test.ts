import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sharedQuery, type Db } from '../../src/db/client.js';
import { createSharedReads } from '../../src/db/shared-read.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await db.exec(`CREATE TABLE sr_items (id int PRIMARY KEY)`);
});
afterAll(async () => {
  await database.drop();
});
beforeEach(async () => {
  await db.exec(`DELETE FROM sr_items`);
});

/** A shared reader over the real database that counts the queries it sends. */
function countingReads() {
  const sent: { text: string; params: unknown[] }[] = [];
  const read = createSharedReads(<R>(text: string, params: unknown[]) => {
    sent.push({ text, params });
    return db.query<R>(text, params);
  });
  return { read, sent };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * On PostgreSQL, waits until a statement with this text runs on the server (a
 * query leaves the service before its pooled connection sends it). PGlite runs
 * one statement at a time: whatever is asked later runs after it anyway.
 */
async function started(text: string) {
  if (db.kind !== 'postgres') return;
  for (let i = 0; i < 200; i++) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query = $1`, [text]);
    if (row.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the query never started');
}
const COUNT = `SELECT count(*)::int AS n FROM sr_items WHERE id > $1`;

describe('shared reads', () => {
  it('identical reads asked in one turn leave as one query, and each caller gets its rows', async () => {
    await db.query(`INSERT INTO sr_items (id) VALUES (1), (2), (3)`);
    const { read, sent } = countingReads();
    const answers = await Promise.all(Array.from({ length: 10 }, () => read<{ n: number }>(COUNT, [0])));
    expect(sent).toHaveLength(1);
    for (const rows of answers) expect(rows).toEqual([{ n: 3 }]);
  });

  it('reads that differ in text or parameters never share', async () => {
    await db.query(`INSERT INTO sr_items (id) VALUES (1), (2), (3)`);
    const { read, sent } = countingReads();
    const [a, b, c] = await Promise.all([
      read<{ n: number }>(COUNT, [0]),
      read<{ n: number }>(COUNT, [2]),
      read<{ n: number }>(`SELECT count(*)::int AS n FROM sr_items WHERE id >= $1`, [2]),
    ]);
    expect(sent).toHaveLength(3);
    expect([a[0].n, b[0].n, c[0].n]).toEqual([3, 1, 2]);
  });

  it('a read asked while an identical query is out waits for the next one, and sees what committed before it asked', async () => {
    const slow = `SELECT pg_sleep(0.3), (SELECT count(*)::int FROM sr_items WHERE id > $1) AS n`;
    const { read, sent } = countingReads();
    const first = read<{ n: number }>(slow, [0]);
    await turn(); // the first query has left
    await started(slow); // and runs on the server, its snapshot taken
    await db.query(`INSERT INTO sr_items (id) VALUES (1)`); // committed before the next read is asked
    const later = [read<{ n: number }>(slow, [0]), read<{ n: number }>(slow, [0])];
    expect((await first)[0].n).toBe(0);
    for (const rows of await Promise.all(later)) expect(rows[0].n).toBe(1);
    // The two later reads shared the second query.
    expect(sent).toHaveLength(2);
  });

  it('a failed query fails only the reads that shared it; the next one runs afresh', async () => {
    let fail = true;
    const read = createSharedReads(<R>(text: string, params: unknown[]) => {
      if (fail) {
        fail = false;
        return new Promise<R[]>((_, reject) => setTimeout(() => reject(new Error('connection lost')), 50));
      }
      return db.query<R>(text, params);
    });
    const failing = [read(COUNT, [0]), read(COUNT, [0])];
    await turn();
    const next = read<{ n: number }>(COUNT, [0]);
    for (const r of failing) await expect(r).rejects.toThrow('connection lost');
    expect(await next).toEqual([{ n: 0 }]);
  });

  it('a query out for more than a second is not waited for: later readers go alone', async () => {
    let release: (rows: unknown[]) => void = () => {};
    let calls = 0;
    const read = createSharedReads(<R>(text: string, params: unknown[]) => {
      if (calls++ === 0) return new Promise<R[]>((resolve) => (release = resolve as (rows: unknown[]) => void)); // hangs until released
      return db.query<R>(text, params);
    });
    const stuck = read<{ n: number }>(COUNT, [0]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await read<{ n: number }>(COUNT, [0])).toEqual([{ n: 0 }]);
    release([{ n: -1 }]);
    expect(await stuck).toEqual([{ n: -1 }]);
  });

  it('parameters JSON cannot tell apart (a bigint) read alone', async () => {
    const { read, sent } = countingReads();
    const rows = await Promise.all([read<{ n: string }>(`SELECT $1::bigint AS n`, [12n]), read<{ n: string }>(`SELECT $1::bigint AS n`, [12n])]);
    expect(sent).toHaveLength(2);
    expect(rows.map((r) => String(r[0].n))).toEqual(['12', '12']);
  });

  it("on the Db reads are shared; through a transaction (sharedQuery), a read is the transaction's own and sees its writes", async () => {
    const outside = await Promise.all([sharedQuery<{ n: number }>(db, COUNT, [0]), sharedQuery<{ n: number }>(db, COUNT, [0])]);
    expect(outside.map((r) => r[0].n)).toEqual([0, 0]);
    const inside = await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO sr_items (id) VALUES (7)`);
      return sharedQuery<{ n: number }>(tx, COUNT, [0]);
    });
    expect(inside[0].n).toBe(1);
    await db.query(`DELETE FROM sr_items WHERE id = 7`);
  });

  it('refuses a shared read on the Db from code holding a transaction (it would not see its writes, and on PGlite wait for it)', async () => {
    await expect(db.transaction(async () => db.sharedRead(COUNT, [0]))).rejects.toThrow(/holds an open transaction/);
  });
});

describe('shared reads when the query cannot even start', () => {
  it('a query function that throws at once fails its readers, not the process', async () => {
    let calls = 0;
    const read = createSharedReads(<R>(text: string, params: unknown[]) => {
      if (calls++ === 0) throw new Error('pool closed');
      return db.query<R>(text, params);
    });
    const failing = [read(COUNT, [0]), read(COUNT, [0])];
    for (const r of failing) await expect(r).rejects.toThrow('pool closed');
    expect(await read<{ n: number }>(COUNT, [0])).toEqual([{ n: 0 }]);
  });
});
