import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { coffeeMessages, talonMessages } from './fixture-literals.js';
import { WRITTEN_CASES } from './written-messages.js';

/**
 * The corpus of replies, fragments and forwards the own-words extraction is
 * measured on: real messages that npm packages ship as their test fixtures
 * (read from node_modules, never copied here; our expected own words for
 * each, keyed by the fixture's path, in npm-fixtures-expected.json; a key
 * `<file>#<n>` names the n-th message a test file holds inline, see
 * fixture-literals.ts; a `.eml` fixture is parsed and its text sent), and
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

export async function corpus(): Promise<CorpusCase[]> {
  const expected = JSON.parse(readFileSync(path.join(here, 'npm-fixtures-expected.json'), 'utf8')) as Record<
    string,
    { source: string; expected: string; format?: 'html'; subject?: string }
  >;
  const inline = new Map<string, string[]>();
  const real: CorpusCase[] = [];
  for (const [fixture, e] of Object.entries(expected)) {
    const [where, nth] = fixture.split('#');
    const [pkg, ...rest] = where.split('/');
    const file = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), ...rest);
    let text: string | undefined;
    let html: string | undefined;
    if (nth) {
      if (!inline.has(file)) {
        const source = readFileSync(file, 'utf8');
        inline.set(file, file.endsWith('.coffee') ? coffeeMessages(source) : talonMessages(source));
      }
      const content = inline.get(file)![Number(nth) - 1];
      if (content === undefined) throw new Error(`${fixture}: no such message in the fixture`);
      if (e.format === 'html') html = content;
      else text = content;
    } else if (file.endsWith('.eml')) {
      const parsed = await simpleParser(readFileSync(file));
      if (parsed.text) text = parsed.text;
      else html = parsed.html || '';
    } else if (e.format === 'html') html = readFileSync(file, 'utf8');
    else text = readFileSync(file, 'utf8');
    real.push({ name: fixture, source: e.source, subject: e.subject, ...(html !== undefined ? { html } : { text }), expected: e.expected });
  }
  return [...real, ...WRITTEN_CASES];
}
