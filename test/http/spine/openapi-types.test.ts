/**
 * A TypeScript integrator's first hour: generate types from the served
 * document with openapi-typescript, then type-check a client scenario written
 * with openapi-fetch against them (create a book, page through submissions,
 * PATCH with If-Match, approve without a body), and check that the types
 * refuse what the server refuses.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let t: TestApp;
let doc: Record<string, unknown>;
let dir: string;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  // Inside the repository's node_modules, so the scenario resolves openapi-fetch as an integrator's project would.
  const cache = path.join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(path.join(cache, 'memorybook-openapi-types-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const SCENARIO = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

const client = createClient<paths>({ baseUrl: 'http://localhost:8000', headers: { Authorization: 'Bearer svc_live_example' } });
const key = () => crypto.randomUUID();
type Book = components['schemas']['Book'];

export async function scenario(): Promise<void> {
  const created = await client.POST('/api/v1/books/', {
    params: { header: { 'Idempotency-Key': key() } },
    body: { title: 'Grandma turns 90', theme: 'storybook', use_case_slug: 'birthday' },
  });
  if (created.error) {
    // The envelope {code, message, details, request_id}, or 422 {detail} for a schema failure.
    throw new Error('code' in created.error ? created.error.code : created.error.detail.map((d) => d.msg).join('; '));
  }
  const book: Book = created.data;
  const slug: string = book.slug;
  const theme: 'storybook' | Book['theme'] = book.theme;
  const location: string | null = created.response.headers.get('Location');

  const ids: string[] = [];
  let cursor: string | undefined;
  let watermark: string | null = null;
  do {
    const page = await client.GET('/api/v1/books/{slug}/submissions/', { params: { path: { slug }, query: { limit: 50, cursor } } });
    if (page.error) throw new Error(page.error.code);
    for (const s of page.data.items) ids.push(s.id);
    cursor = page.data.next_cursor ?? undefined;
    watermark = page.response.headers.get('Last-Modified');
  } while (cursor);
  const changes = await client.GET('/api/v1/books/{slug}/submissions/', { params: { path: { slug }, query: { updated_since: watermark ?? undefined } } });
  const etags: string[] = (changes.data?.items ?? []).map((s) => s.etag);

  const updated = await client.PATCH('/api/v1/books/{slug}/', {
    params: { path: { slug }, header: { 'Idempotency-Key': key(), 'If-Match': book.etag } },
    body: { subtitle: 'Stories from the family', theme: 'modern_clean' },
  });
  if (updated.error && 'code' in updated.error && updated.error.code === 'precondition_failed') {
    const current: unknown = updated.error.details?.current_etag;
    void current;
  }

  const approved = await client.POST('/api/v1/books/{slug}/submissions/{id}/approve/', {
    params: { path: { slug, id: ids[0] }, header: { 'Idempotency-Key': key() } },
  });
  if (approved.data) {
    const changed: boolean = approved.data.changed;
    const status: 'pending' | 'approved' | 'rejected' = approved.data.submission.status;
    void [changed, status];
  }

  await client.POST('/api/v1/books/{slug}/submissions/{id}/reject/', { params: { path: { slug, id: ids[1] }, header: { 'Idempotency-Key': key() } } });
  await client.POST('/api/v1/books/{slug}/submissions/{id}/reject/', {
    params: { path: { slug, id: ids[1] }, header: { 'Idempotency-Key': key() } },
    body: { reason: 'Off topic' },
  });
  void [theme, location, etags];
}

export async function refused(slug: string, id: string): Promise<void> {
  // @ts-expect-error an unknown theme is not in the enum
  await client.POST('/api/v1/books/', { params: { header: { 'Idempotency-Key': key() } }, body: { title: 'x', theme: 'neon' } });
  // @ts-expect-error the Idempotency-Key header is required
  await client.POST('/api/v1/books/', { body: { title: 'x' } });
  // @ts-expect-error approve takes no body
  await client.POST('/api/v1/books/{slug}/submissions/{id}/approve/', { params: { path: { slug, id }, header: { 'Idempotency-Key': key() } }, body: { note: 'x' } });
  // @ts-expect-error PATCH honours If-Match, yet still needs its Idempotency-Key
  await client.PATCH('/api/v1/books/{slug}/', { params: { path: { slug }, header: { 'If-Match': '"x"' } }, body: { title: 'x' } });
}
`;

describe('OpenAPI document: generated TypeScript types', () => {
  it('generates types with openapi-typescript and type-checks an openapi-fetch client scenario against them', async () => {
    const types = astToString(await openapiTS(doc as never));
    expect(types).toContain('"Idempotency-Key": components["parameters"]["Idempotency-Key"]');
    writeFileSync(path.join(dir, 'schema.d.ts'), types);
    writeFileSync(path.join(dir, 'client.ts'), SCENARIO);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM'],
          types: [],
          skipLibCheck: false,
          noUnusedLocals: true,
        },
        files: ['client.ts', 'schema.d.ts'],
      }),
    );
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout + run.stderr, 'tsc output').toBe('');
    expect(run.status).toBe(0);
  });
});
