/**
 * The memorybook-client package, built the way it ships: its types generated
 * from the document the service serves now (scripts/generate-types.mjs), its
 * sources and an integrator's code type-checked against them with the
 * browser's library only (no Node types: the package runs in browsers too),
 * then compiled, and the compiled ESM called from plain Node against the
 * service over a socket.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '../helpers/factories.js';
import { serveTestApp, type ServedApp } from './client-setup.js';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGE = path.join(REPO_ROOT, 'packages/client');

let t: ServedApp;
let dir: string;
beforeAll(async () => {
  t = await serveTestApp();
  // Inside the repository's node_modules, so the package resolves openapi-fetch as it does when installed.
  const cache = path.join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(path.join(cache, 'memorybook-client-build-'));
  cpSync(path.join(PACKAGE, 'src'), path.join(dir, 'src'), { recursive: true, filter: (p) => !p.includes(`${path.sep}generated`) });
  cpSync(path.join(PACKAGE, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  cpSync(path.join(PACKAGE, 'package.json'), path.join(dir, 'package.json'));
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify((await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()));
}, 180_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** What an integrator writes, and what the types must refuse. */
const USAGE = `
import { createMemorybookClient, MemorybookError, ok, type Book, type Media, type Submission } from './index.js';

const mb = createMemorybookClient({ baseUrl: 'http://localhost:8000', apiKey: 'svc_live_example' });

export async function scenario(slug: string, submissionId: string, file: File): Promise<void> {
  // No Idempotency-Key to pass: the client sends one.
  const book: Book = ok(await mb.POST('/api/v1/books/', { body: { title: 'Grandma turns 90', theme: 'storybook' } }));
  for await (const s of mb.items('/api/v1/books/{slug}/submissions/', { path: { slug }, query: { limit: 100 } })) {
    const text: string = s.text_content;
    void text;
  }
  for await (const page of mb.pages('/api/v1/books/')) {
    const books: Book[] = page.items;
    const watermark: string | null = page.lastModified;
    void [books, watermark];
  }
  const first = await mb.sync('/api/v1/books/{slug}/submissions/', { path: { slug } });
  const changed: Submission[] = (await mb.sync('/api/v1/books/{slug}/submissions/', { path: { slug }, since: first.since })).items;
  const updated: Book = await mb.update('/api/v1/books/{slug}/', { path: { slug } }, (current) => ({ subtitle: current.title + ': the stories' }));
  const media: Media = await mb.media.upload({ slug, submissionId, file });
  const fresh: Media = await mb.media.fresh({ slug, submissionId, mediaId: media.id }, media);
  const bytes: Response = await mb.media.download({ slug, submissionId, mediaId: media.id });
  const job = await mb.exports.request(slug, { theme: 'storybook', export_format: 'pdf' });
  const done = await mb.exports.wait(slug, job.id);
  const artifact = await mb.exports.artifact(slug, done.id);
  const url: string = artifact.download_url;
  try {
    ok(await mb.GET('/api/v1/books/{slug}/', { params: { path: { slug: book.slug } } }));
  } catch (err) {
    if (MemorybookError.is(err, 'not_found')) {
      const id: string | null = err.requestId;
      const details: Record<string, unknown> | null = err.details;
      const fields: (string | number)[][] = err.detail.map((d) => d.loc);
      void [id, details, fields];
    }
  }
  void [changed, updated, fresh, bytes, url];
}

export async function refused(slug: string): Promise<void> {
  // @ts-expect-error the path needs its slug
  mb.items('/api/v1/books/{slug}/submissions/');
  // @ts-expect-error a detail route is not a list
  mb.items('/api/v1/books/{slug}/', { path: { slug } });
  // @ts-expect-error the cursor is the helper's own business
  mb.items('/api/v1/books/{slug}/submissions/', { path: { slug }, query: { cursor: 'abc' } });
  // @ts-expect-error plans cannot be synced (no updated_since)
  await mb.sync('/api/v1/plans/', {});
  // @ts-expect-error the slug is immutable
  await mb.update('/api/v1/books/{slug}/', { path: { slug } }, () => ({ slug: 'elsewhere' }));
  // @ts-expect-error an unknown theme is not in the enum
  await mb.POST('/api/v1/books/', { body: { title: 'x', theme: 'neon' } });
}
`;

describe('memorybook-client package build', () => {
  it('generates its types from the served document, type-checks for browsers, compiles, and runs from plain Node', async () => {
    await run(process.execPath, [path.join(PACKAGE, 'scripts/generate-types.mjs'), '--from', path.join(dir, 'openapi.json'), '--out', path.join(dir, 'src/generated/schema.ts')]);
    writeFileSync(path.join(dir, 'src/usage.ts'), USAGE);
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const built = await run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json'), '--noUnusedLocals'], { timeout: 120_000 }).catch((e) => e);
    expect(`${built.stdout ?? ''}${built.stderr ?? ''}`, 'tsc output').toBe('');

    const owner = await newUser(t);
    const script = `
      import { createMemorybookClient, ok, MemorybookError } from ${JSON.stringify(path.join(dir, 'dist/index.js'))};
      const mb = createMemorybookClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.KEY });
      const me = ok(await mb.GET('/api/v1/auth/me/'));
      const plans = [];
      for await (const p of mb.items('/api/v1/plans/')) plans.push(p.slug);
      const book = ok(await mb.POST('/api/v1/books/', { body: { title: 'From plain Node' } }));
      const denied = await createMemorybookClient({ baseUrl: process.env.BASE_URL }).GET('/api/v1/books/').then(ok).catch((e) => e);
      console.log(JSON.stringify({ email: me.user.email, plans, slug: book.slug, denied: denied instanceof MemorybookError ? denied.code : String(denied) }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, BASE_URL: t.url, KEY: owner.token } });
    expect(JSON.parse(stdout)).toEqual({ email: owner.email, plans: expect.arrayContaining(['free', 'plus', 'premium']), slug: 'from-plain-node', denied: 'unauthorized' });
  }, 180_000);
});
