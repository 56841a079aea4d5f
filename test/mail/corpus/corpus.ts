import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { WRITTEN_CASES } from './written-messages.js';

/**
 * The corpus of replies, fragments and forwards the own-words extraction is
 * measured on: real messages that npm packages ship as their test fixtures
 * (read from node_modules, never copied here; our expected own words for
 * each, keyed by the fixture's path, in npm-fixtures-expected.json), and
 * messages written for this project in the clients' shapes and languages
 * (written-messages.ts).
 */
export interface CorpusCase {
  name: string;
  source: string;
  subject?: string;
  text?: string;
  html?: string;
  expected: string;
}

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);

export function corpus(): CorpusCase[] {
  const expected = JSON.parse(readFileSync(path.join(here, 'npm-fixtures-expected.json'), 'utf8')) as Record<
    string,
    { source: string; expected: string; format?: 'html'; subject?: string }
  >;
  const real = Object.entries(expected).map(([fixture, e]): CorpusCase => {
    const [pkg, ...rest] = fixture.split('/');
    const file = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), ...rest);
    const content = readFileSync(file, 'utf8');
    return { name: fixture, source: e.source, subject: e.subject, ...(e.format === 'html' ? { html: content } : { text: content }), expected: e.expected };
  });
  return [...real, ...WRITTEN_CASES];
}
