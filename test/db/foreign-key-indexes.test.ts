import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('foreign keys', () => {
  // A row deleted or a key set to NULL through a foreign key finds the rows
  // that reference it by their column: without an index there, every account,
  // book or memory deletion reads the whole referencing table (a 100,000-memory
  // book's purge once read the inbound tables 100,000 times). Plans are a
  // small catalogue that is never deleted, so their references need none.
  it('every reference to a table rows are deleted from has an index led by its column', async () => {
    const unindexed = await database.db.query<{ reference: string }>(
      `SELECT c.conrelid::regclass::text || '.' || a.attname || ' -> ' || c.confrelid::regclass::text AS reference
         FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
          AND c.confrelid <> 'plans'::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])
        ORDER BY 1`,
    );
    expect(unindexed.map((r) => r.reference)).toEqual([]);
  });
});
