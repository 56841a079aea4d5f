import { describe, expect, it } from 'vitest';
import { extractOwnWords } from '../../src/services/inbound-email/own-words.js';
import { textOfHtml } from '../../src/services/inbound-email/html-text.js';
import { corpus } from './corpus/corpus.js';

const cases = await corpus();

describe('own words over the corpus (the extraction itself; the same cases go through SMTP and the webhook in inbound-email.corpus.test.ts)', () => {
  it('holds at least 150 messages, each with its source named', () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    for (const c of cases) expect(c.source).toBeTruthy();
    // Of them at least 150 are real: published by public projects as their test messages, read from the npm packages they ship in.
    expect(cases.filter((c) => c.source.startsWith('npm ')).length).toBeGreaterThanOrEqual(150);
  });
  it('finds exactly the expected own words in at least 95% of them', () => {
    const misses: string[] = [];
    for (const c of cases) {
      const text = c.text ?? textOfHtml(c.html!);
      const got = extractOwnWords(text, { subject: c.subject }).text;
      if (got !== c.expected) misses.push(`${c.name}\n--- got\n${got}\n--- expected\n${c.expected}`);
    }
    if (misses.length && process.env.CORPUS_VERBOSE) console.log(`corpus misses (${misses.length} of ${cases.length}):\n\n${misses.join('\n\n')}`);
    if (misses.length) console.log(`corpus: ${cases.length - misses.length} of ${cases.length} exact; misses: ${misses.map((m) => m.split('\n')[0]).join('; ')}`);
    expect(cases.length - misses.length).toBeGreaterThanOrEqual(Math.ceil(cases.length * 0.95));
  });
});
