import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const dir = () => mkdtempSync(path.join(tmpdir(), 'memorybook-config-'));

describe('loadConfig', () => {
  it('defaults to the embedded set-up: port 8000, PGlite in DATA_DIR, a generated secret kept on disk', () => {
    const dataDir = dir();
    const c = loadConfig({ DATA_DIR: dataDir });
    expect(c.http.port).toBe(8000);
    expect(c.http.publicUrl).toBe('http://localhost:8000');
    expect(c.database.kind).toBe('pglite');
    expect(c.secretKey.length).toBeGreaterThanOrEqual(32);
    const file = path.join(dataDir, 'secret_key');
    expect(readFileSync(file, 'utf8').trim()).toBe(c.secretKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The same secret on the next start.
    expect(loadConfig({ DATA_DIR: dataDir }).secretKey).toBe(c.secretKey);
    expect(Object.isFrozen(c.http)).toBe(true);
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const c = loadConfig({ DATA_DIR: dir(), DATABASE_URL: 'postgres://u@h:5432/db', SECRET_KEY: 'k'.repeat(40) });
    expect(c.database).toMatchObject({ kind: 'postgres', url: 'postgres://u@h:5432/db' });
  });

  it('lists every bad variable, one line each, naming it', () => {
    let err: ConfigError | undefined;
    try {
      loadConfig({ DATA_DIR: dir(), PORT: 'eighty', DATABASE_URL: 'mysql://x', SECRET_KEY: 'short', PUBLIC_URL: 'ftp://x', LOG_LEVEL: 'loud' });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const names = err!.problems.map((p) => p.split(':')[0]);
    expect(names).toEqual(['PORT', 'PUBLIC_URL', 'DATABASE_URL', 'LOG_LEVEL', 'SECRET_KEY']);
  });

  it('requires SECRET_KEY in production and writes nothing', () => {
    const dataDir = dir();
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir })).toThrow(/SECRET_KEY: required/);
    expect(existsSync(path.join(dataDir, 'secret_key'))).toBe(false);
  });
});
