import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ensureSecretKey, loadConfig } from '../../src/config/config.js';

const dir = () => mkdtempSync(path.join(tmpdir(), 'memorybook-config-'));

describe('loadConfig', () => {
  it('defaults to the embedded set-up: port 8000, PGlite in DATA_DIR, a generated secret kept on disk by the explicit step, not by loading', () => {
    const dataDir = dir();
    const loaded = loadConfig({ DATA_DIR: dataDir });
    const file = path.join(dataDir, 'secret_key');
    expect(existsSync(file)).toBe(false);
    const c = ensureSecretKey(loaded);
    expect(c.http.port).toBe(8000);
    expect(c.http.publicUrl).toBe('http://localhost:8000');
    expect(c.database.kind).toBe('pglite');
    expect(c.secretKey.length).toBeGreaterThanOrEqual(32);
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

  it('limits slow clients by default (10 s headers, 60 s request, 5 s keep-alive) and takes other limits from the environment', () => {
    expect(loadConfig({ DATA_DIR: dir() }).http.timeouts).toEqual({ headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000 });
    const c = loadConfig({ DATA_DIR: dir(), HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '3600000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '750' });
    expect(c.http.timeouts).toEqual({ headersMs: 2000, requestMs: 3_600_000, keepAliveMs: 750 });
  });

  it('refuses timeouts that are not whole milliseconds in range, or headers allowed longer than the whole request', () => {
    const problemsFor = (env: Record<string, string>) => {
      try {
        loadConfig({ DATA_DIR: dir(), ...env });
      } catch (e) {
        return (e as ConfigError).problems;
      }
      return [];
    };
    const bad = problemsFor({ HTTP_HEADERS_TIMEOUT_MS: '0', HTTP_REQUEST_TIMEOUT_MS: '1.5', HTTP_KEEP_ALIVE_TIMEOUT_MS: 'forever' });
    expect(bad.map((p) => p.split(':')[0])).toEqual(['HTTP_HEADERS_TIMEOUT_MS', 'HTTP_REQUEST_TIMEOUT_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS']);
    const inverted = problemsFor({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' });
    expect(inverted).toEqual(['HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (20000), got "30000"']);
  });

  it('reads INBOUND_EMAIL_ALLOWED_CIDRS as ranges, naming one that is not a range', () => {
    const base = { DATA_DIR: dir(), INBOUND_EMAIL_SECRET: 'inbound-email-secret-0123456789', INBOUND_EMAIL_AUTHSERV_ID: 'mx.provider.test' };
    expect(loadConfig(base).mailInbound.webhookAllowedCidrs).toBeNull();
    const ranges = loadConfig({ ...base, INBOUND_EMAIL_ALLOWED_CIDRS: '203.0.113.0/24, 2001:db8::/32' }).mailInbound.webhookAllowedCidrs;
    expect(ranges?.map(([a, bits]) => `${a.toString()}/${bits}`)).toEqual(['203.0.113.0/24', '2001:db8::/32']);
    expect(() => loadConfig({ ...base, INBOUND_EMAIL_ALLOWED_CIDRS: '203.0.113.0/24,mx.provider.test' })).toThrow(/INBOUND_EMAIL_ALLOWED_CIDRS: "mx.provider.test" is not a CIDR range/);
    expect(() => loadConfig({ ...base, INBOUND_EMAIL_ALLOWED_CIDRS: '203.0.113.7' })).toThrow(/INBOUND_EMAIL_ALLOWED_CIDRS/);
  });
});
