/**
 * The memorybook-client package, built the way it ships: its types generated
 * from the document the service serves now (scripts/generate-types.mjs), its
 * sources and an integrator's code type-checked against them with the
 * browser's library only (no Node types: the package runs in browsers too),
 * then compiled, and the compiled ESM called from plain Node against the
 * service over a socket.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  for await (const s of mb.items('/api/v1/books/{slug}/submissions/', { params: { path: { slug }, query: { limit: 100 } } })) {
    const text: string = s.text_content;
    void text;
  }
  for await (const page of mb.pages('/api/v1/books/')) {
    const books: Book[] = page.items;
    const watermark: string | null = page.lastModified;
    void [books, watermark];
  }
  // The earlier shape ({ path }) still works, marked deprecated.
  for await (const s of mb.items('/api/v1/books/{slug}/submissions/', { path: { slug } })) void s;
  const first = await mb.sync('/api/v1/books/{slug}/submissions/', { params: { path: { slug } } });
  const changed: Submission[] = (await mb.sync('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, since: first.since })).items;
  const updated: Book = await mb.update('/api/v1/books/{slug}/', { params: { path: { slug } } }, (current) => ({ subtitle: current.title + ': the stories' }));
  // The caller's own things across books, any role.
  for await (const m of mb.me.memberships()) {
    const role: 'owner' | 'admin' | 'contributor' = m.role;
    void role;
  }
  for await (const s of mb.me.submissions({ book: slug, status: 'approved', limit: 100 })) {
    const mine: Submission['text_content'] = s.text_content;
    const where: string = s.book.title;
    void [mine, where];
  }
  for await (const s of mb.me.subscriptions()) void s.book.slug;
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
      const details: null = err.details;
      const fields: (string | number)[][] = err.detail.map((d) => d.loc);
      void [id, details, fields];
    }
    // details typed by the code, no cast.
    if (err instanceof MemorybookError && err.code === 'precondition_failed') {
      const etag: string = err.details.current_etag;
      void etag;
    }
    if (err instanceof MemorybookError && err.code === 'connection_refused') {
      const attempts: number = err.attempts;
      void attempts;
    }
    if (err instanceof MemorybookError) {
      const status: number | null = err.status;
      void status;
    }
  }
  void [changed, updated, fresh, bytes, url];
}

export async function refused(slug: string, err: unknown): Promise<void> {
  // @ts-expect-error an unknown code is not a code
  if (MemorybookError.is(err, 'precondtion_failed')) void err;
  // @ts-expect-error an unknown code is not a code
  if (err instanceof MemorybookError && err.code === 'precondtion_failed') void err;
  // @ts-expect-error an API key is required, unless a fetch that authenticates is given
  createMemorybookClient({ baseUrl: 'http://localhost:8000' });
  createMemorybookClient({ baseUrl: 'http://localhost:8000', fetch: (request) => fetch(request, { headers: { Authorization: 'Bearer svc_live_x' } }) });
  // @ts-expect-error the path needs its slug
  mb.items('/api/v1/books/{slug}/submissions/');
  // @ts-expect-error a detail route is not a list
  mb.items('/api/v1/books/{slug}/', { params: { path: { slug } } });
  // @ts-expect-error the cursor is the helper's own business
  mb.items('/api/v1/books/{slug}/submissions/', { params: { path: { slug }, query: { cursor: 'abc' } } });
  // @ts-expect-error plans cannot be synced (no updated_since)
  await mb.sync('/api/v1/plans/', {});
  // @ts-expect-error not a moderation state
  mb.me.submissions({ status: 'lost' });
  // @ts-expect-error the slug is immutable
  await mb.update('/api/v1/books/{slug}/', { params: { path: { slug } } }, () => ({ slug: 'elsewhere' }));
  // @ts-expect-error an unknown theme is not in the enum
  await mb.POST('/api/v1/books/', { body: { title: 'x', theme: 'neon' } });
}
`;

type Json = Record<string, any>;

/** A value a schema takes, as an integrator would write it: its example, else its required fields filled in. */
function sample(doc: Json, schema: Json | undefined): unknown {
  if (!schema) return {};
  if (typeof schema.$ref === 'string') return sample(doc, doc.components.schemas[schema.$ref.split('/').pop()!]);
  if (schema.examples?.length) return schema.examples[0];
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null);
  if (Array.isArray(schema.anyOf)) return sample(doc, schema.anyOf.find((b: Json) => b.type !== 'null'));
  const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'email' ? 'aunt.may@example.org' : 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default:
      return Object.fromEntries((schema.required ?? []).map((k: string) => [k, sample(doc, schema.properties?.[k])]));
  }
}

/** One call of every operation of the document, through the client, the way its README shows. */
function everyOperation(doc: Json): string {
  const lines: string[] = [];
  let n = 0;
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const pathParams = Object.fromEntries(
        (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => [p.name, sample(doc, p.schema)]),
      );
      const hasPath = Object.keys(pathParams).length > 0;
      const json = op.requestBody?.content?.['application/json'];
      if (!json && op.requestBody?.content?.['multipart/form-data']) {
        // An upload: the helper, which builds the form (and for a memory's file waits for processing).
        if (path.endsWith('/cover/')) lines.push(`  const r${n++} = await mb.cover.put({ slug: ${JSON.stringify(pathParams.slug)}, file });`);
        else lines.push(`  const r${n++} = await mb.media.upload({ slug: ${JSON.stringify(pathParams.slug)}, submissionId: ${JSON.stringify(pathParams.id)}, file });`);
        continue;
      }
      const options: string[] = [];
      if (hasPath) options.push(`params: { path: ${JSON.stringify(pathParams)} }`);
      if (json) options.push(`body: ${JSON.stringify(sample(doc, json.schema))}`);
      const args = options.length ? `, { ${options.join(', ')} }` : '';
      lines.push(`  const r${n++} = ok(await mb.${method.toUpperCase()}('${path}'${args}));`);
    }
  }
  return `export async function everyOperation(file: File): Promise<unknown[]> {\n${lines.join('\n')}\n  return [${[...Array(n).keys()].map((i) => `r${i}`).join(', ')}];\n}\n`;
}

describe('memorybook-client package build', () => {
  it('generates its types from the served document, type-checks for browsers, compiles, and runs from plain Node', async () => {
    await run(process.execPath, [path.join(PACKAGE, 'scripts/generate-types.mjs'), '--from', path.join(dir, 'openapi.json'), '--out', path.join(dir, 'src/generated/schema.ts')]);
    const doc = JSON.parse(readFileSync(path.join(dir, 'openapi.json'), 'utf8'));
    const operations = everyOperation(doc);
    // Every operation, bodies the contract writes as {} among them.
    expect(operations).toContain(`mb.POST('/api/v1/me/export/', { body: {} })`);
    expect(operations.match(/ = /g)?.length).toBe(Object.values<Json>(doc.paths).reduce((k, item) => k + Object.keys(item).length, 0));
    writeFileSync(path.join(dir, 'src/usage.ts'), USAGE + operations);
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const built = await run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json'), '--noUnusedLocals'], { timeout: 120_000 }).catch((e) => e);
    expect(`${built.stdout ?? ''}${built.stderr ?? ''}`, 'tsc output').toBe('');

    // The source maps resolve in the package as it is packed: every source they name is in it.
    const packed = JSON.parse((await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir })).stdout)[0].files.map((f: { path: string }) => f.path);
    const maps = packed.filter((f: string) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(5);
    for (const map of maps) {
      for (const source of JSON.parse(readFileSync(path.join(dir, map), 'utf8')).sources as string[]) {
        expect(packed, `${map} → ${source}`).toContain(path.posix.join(path.posix.dirname(map), source));
      }
    }

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
