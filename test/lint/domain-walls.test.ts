// The domain walls' rules (issue 39) fail on a deliberate violation and pass
// without it: eslint's walls/no-sql-outside-repository (SQL in a service file
// that is no repository) and dependency-cruiser's domain-walls (a domain
// importing another's repository), each run as `npm run lint` runs it.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

describe('eslint: no SQL outside a repository', () => {
  const eslint = new ESLint({ cwd: ROOT });
  const sqlRule = 'walls/no-sql-outside-repository';
  const lint = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return result.messages.filter((m) => m.ruleId === sqlRule).map((m) => m.line);
  };
  const violation = [
    "import type { Queryable } from '../../db/client.js';",
    'export async function countBooks(q: Queryable, userId: string) {',
    '  const [row] = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM books WHERE owner_id = $1`, [userId]);',
    "  await q.query('DELETE FROM books WHERE id = $1', [userId]);",
    '  return row.n;',
    '}',
    '',
  ].join('\n');

  it('fails on SQL in a service file, template or plain string', async () => {
    expect(await lint('src/services/books/walls-violation.ts', violation)).toEqual([3, 4]);
  });

  it('passes the same code in the domain repository (or a store named so)', async () => {
    expect(await lint('src/services/books/walls-violation-repository.ts', violation)).toEqual([]);
    expect(await lint('src/services/books/walls-violation-store.ts', violation)).toEqual([]);
  });

  it('passes prose that names SQL words', async () => {
    expect(await lint('src/services/books/walls-prose.ts', "export const why = 'Select a photo from the book, then update the cover.';\n")).toEqual([]);
  });
});

describe('dependency-cruiser: no import of another domain’s repository', () => {
  let dir: string;
  const cruise = async (serviceSource: string) => {
    await writeFile(path.join(dir, 'src/services/books/book-service.ts'), serviceSource);
    try {
      const { stdout } = await run(process.execPath, [path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), 'src', '--config', path.join(ROOT, '.dependency-cruiser.cjs')], { cwd: dir });
      return { failed: false, output: stdout };
    } catch (err) {
      const e = err as { stdout: string; code: number };
      return { failed: true, output: e.stdout };
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'memorybook-walls-'));
    for (const d of ['src/services/books', 'src/services/media']) await mkdir(path.join(dir, d), { recursive: true });
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022' } }));
    await writeFile(path.join(dir, 'src/services/media/media-repository.ts'), 'export const findMedia = () => undefined;\n');
    await writeFile(path.join(dir, 'src/services/media/media-reads.ts'), "import { findMedia as find } from './media-repository.js';\nexport const findMedia = () => find();\n");
    await writeFile(path.join(dir, 'src/services/books/book-repository.ts'), 'export const findBook = () => undefined;\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fails when books imports the media repository', async () => {
    const { failed, output } = await cruise("import { findMedia } from '../media/media-repository.js';\nimport { findBook } from './book-repository.js';\nexport const x = [findMedia, findBook];\n");
    expect(failed).toBe(true);
    expect(output).toContain('domain-walls: src/services/books/book-service.ts → src/services/media/media-repository.ts');
  });

  it('passes when books reads media through the media domain’s read module, and its own repository directly', async () => {
    const { failed, output } = await cruise("import { findMedia } from '../media/media-reads.js';\nimport { findBook } from './book-repository.js';\nexport const x = [findMedia, findBook];\n");
    expect(output).not.toContain('domain-walls');
    expect(failed).toBe(false);
  });
});
