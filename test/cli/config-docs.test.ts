/** The configuration's schema is the one source: the README's table is generated from it, and every variable loadConfig reads is in it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALIASES, CONFIG_ROWS, CONFIG_SCHEMA, configTable, VARIABLES, withConfigTable } from '../../src/config/schema.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('the configuration schema', () => {
  it('is what the README says: run `npm run docs:config` when this fails', () => {
    const readme = read('README.md');
    expect(readme).toContain(configTable());
    expect(withConfigTable(readme)).toBe(readme);
  });

  it('gives every variable a type, and every row a default and a line of meaning', () => {
    for (const r of CONFIG_ROWS) {
      const where = Object.keys(r.vars).join(', ');
      expect(Object.keys(r.vars).length, where).toBeGreaterThan(0);
      expect(r.default.trim().length, where).toBeGreaterThan(0);
      expect(r.meaning.trim().length, where).toBeGreaterThan(5);
      for (const [name, s] of Object.entries(r.vars)) expect(s.type ?? s.anyOf, name).toBeDefined();
    }
    // One TypeBox object per group, together holding every variable once.
    const grouped = Object.values(CONFIG_SCHEMA).flatMap((o) => Object.keys(o.properties));
    expect(grouped.sort()).toEqual(Object.keys(VARIABLES).sort());
    expect(Object.keys(CONFIG_SCHEMA)).toEqual(expect.arrayContaining(['http', 'database', 'storage', 'mail', 'channels', 'billing', 'exports', 'push', 'transcription']));
  });

  it('holds every variable config.ts reads, and config.ts reads every one it holds (OTEL_* are the tracing SDK\'s)', () => {
    const config = read('src/config/config.ts');
    const names = new Set([...config.matchAll(/(?:str|int)\('([A-Z0-9_]+)'/g), ...config.matchAll(/: '([A-Z0-9_]+)'/g)].map((m) => m[1]));
    const known = new Set([...Object.keys(VARIABLES), ...Object.keys(ALIASES)]);
    expect([...names].filter((n) => !known.has(n))).toEqual([]);
    // OTEL_* are the OpenTelemetry SDK's own (src/lib/tracing.ts hands it the environment).
    for (const name of Object.keys(VARIABLES).filter((n) => !n.startsWith('OTEL_'))) {
      expect(config.includes(`'${name}'`), `${name} is documented but config.ts never reads it`).toBe(true);
    }
  });
});
