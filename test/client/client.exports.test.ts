/**
 * memorybook-client's export helpers against the real service and its job
 * worker: request, poll, artifact, download.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type MemorybookClient } from '../../packages/client/src/index.js';
import { newUser } from '../helpers/factories.js';
import { serveTestApp, type ServedApp } from './client-setup.js';

let t: ServedApp;
afterAll(() => t.close());

describe('memorybook-client exports', () => {
  let mb: MemorybookClient;
  let slug: string;
  beforeAll(async () => {
    t = await serveTestApp({ worker: true });
    const owner = await newUser(t);
    await t.services.quotas.grantSlots(owner.user.id, 'premium', 1);
    mb = t.client(owner.token);
    slug = ok(await mb.POST('/api/v1/books/', { body: { title: 'To print', plan: 'premium' } })).slug;
    const s = ok(await mb.POST('/api/v1/books/{slug}/submissions/', { params: { path: { slug } }, body: { text_content: 'The day we met' } }));
    ok(await mb.POST('/api/v1/books/{slug}/submissions/{id}/approve/', { params: { path: { slug, id: s.id } } }));
  }, 120_000);

  it('requests a JSON export, waits for it, and downloads the artifact', async () => {
    const { job, artifact } = await mb.exports.run(slug, { theme: 'storybook', export_format: 'json' }, { timeoutMs: 120_000 });
    expect(job).toMatchObject({ status: 'complete', export_format: 'json', theme: 'storybook' });
    expect(artifact.download_url).toMatch(/^http/);
    const res = await mb.exports.download(slug, job.id);
    const body = (await res.json()) as { submissions: { text_content: string }[] };
    expect(body.submissions.map((s) => s.text_content)).toEqual(['The day we met']);
    const listed = [];
    for await (const e of mb.items('/api/v1/books/{slug}/exports/', { path: { slug } })) listed.push(e.id);
    expect(listed).toContain(job.id);
  }, 180_000);

  it('requests a PDF export step by step', async () => {
    const requested = await mb.exports.request(slug, { theme: 'modern_clean' });
    expect(['pending', 'processing', 'complete']).toContain(requested.status);
    const done = await mb.exports.wait(slug, requested.id, { timeoutMs: 180_000 });
    expect(done.status).toBe('complete');
    const pdf = Buffer.from(await (await mb.exports.download(slug, requested.id)).arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  }, 240_000);

  it('answers an unknown job as MemorybookError not_found', async () => {
    await expect(mb.exports.get(slug, '01935f4e-0000-7000-8000-000000000000')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});
