import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createDb } from '../../src/db/client.js';

describe('embedded database folder lock', () => {
  it('refuses a second opener while the first holds it, and frees it on close', async () => {
    const config = loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'memorybook-lock-')), SECRET_KEY: 'k'.repeat(40), DATABASE_URL: '' });
    const first = await createDb(config);
    await expect(createDb(config)).rejects.toThrow(/in use by process \d+/);
    await first.close();
    const again = await createDb(config);
    await again.close();
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    const config = loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'memorybook-lock-')), SECRET_KEY: 'k'.repeat(40), DATABASE_URL: '' });
    const dir = path.join(config.dataDir, 'pglite');
    (await createDb(config)).close();
    writeFileSync(path.join(dir, '.memorybook.lock'), '999999'); // no such pid
    const db = await createDb(config);
    expect((await db.query<{ x: number }>('SELECT 1 AS x'))[0].x).toBe(1);
    await db.close();
  });
});
