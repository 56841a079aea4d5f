import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HEAVIEST_FILES } from '../helpers/heavy-first-sequencer.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the heavy-first order of the suite', () => {
  it('names only test files that exist (a renamed file would silently fall back to the end)', () => {
    for (const f of HEAVIEST_FILES) expect(existsSync(path.join(root, f)), f).toBe(true);
  });
});
