/**
 * Every answer of the export routes other than success: validation (400
 * with details, 422), plan gates per format, 404 for other books' jobs and
 * malformed ids, 409 while rendering, 410 when failed, expired or gone, and
 * 502 with Retry-After when the store cannot be asked or cannot sign (the
 * file is kept and served once it can), on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THEMES } from '../../../src/services/books/book-types.js';
import { addMember, newUser, type TestUser } from '../../helpers/factories.js';
import { approvedMemory, buildExportApp, exportBook, exportsPath, hurryRetries, settled, STORES, type ExportTestApp } from './exports-setup.js';
import { eventually } from '../../helpers/eventually.js';

describe('requests the service refuses', () => {
  let t: ExportTestApp;
  let owner: TestUser;
  beforeAll(async () => {
    t = await buildExportApp('local', { worker: false });
    owner = await newUser(t);
  });
  afterAll(() => t?.close());

  it('an unknown theme: 400 validation_failed listing the eleven in details.offered', async () => {
    const { slug } = await exportBook(t, owner);
    const res = await t.post(exportsPath(slug), { theme: 'vaporwave' }, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details).toMatchObject({ field: 'theme', offered: [...THEMES] });
    expect(res.body.details.offered).toHaveLength(11);
  });

  it('a body the schema refuses: 422 naming the field', async () => {
    const { slug } = await exportBook(t, owner);
    for (const [body, field] of [
      [{}, 'theme'],
      [{ theme: 'storybook', intent: 'poster' }, 'intent'],
      [{ theme: 'storybook', export_format: 'docx' }, 'export_format'],
      [{ theme: 'storybook', bleed_mm: 5 }, 'bleed_mm'],
      [{ theme: 7 }, 'theme'],
    ] as const) {
      const res = await t.post(exportsPath(slug), body, { token: owner.token });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(`body.${field}`);
    }
  });

  it('a format the plan lacks: 400 validation_failed naming the feature', async () => {
    const free = await exportBook(t, owner, { plan: 'free' });
    const plus = await exportBook(t, owner, { plan: 'plus' });
    for (const [slug, format, feature] of [
      [free.slug, 'pdf', 'pdf_export'],
      [free.slug, 'zip', 'zip_export'],
      [plus.slug, 'zip', 'zip_export'],
    ] as const) {
      const res = await t.post(exportsPath(slug), { theme: 'storybook', export_format: format }, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: { field: 'export_format', export_format: format, feature } });
      expect(res.body.message).toContain(feature);
    }
    // The default format is pdf: on the free plan that needs pdf_export too.
    expect((await t.post(exportsPath(free.slug), { theme: 'storybook' }, { token: owner.token })).body.details.feature).toBe('pdf_export');
    expect((await t.post(exportsPath(free.slug), { theme: 'storybook', export_format: 'json' }, { token: owner.token })).status).toBe(202);
    expect((await t.post(exportsPath(plus.slug), { theme: 'storybook', export_format: 'pdf' }, { token: owner.token })).status).toBe(202);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM exports e JOIN books b ON b.id = e.book_id WHERE b.slug = ANY($1)`, [
      [free.slug, plus.slug],
    ]);
    expect(n).toBe(2);
  });

  it('contributors get 403, people outside the book 404', async () => {
    const { slug } = await exportBook(t, owner);
    const job = await t.post(exportsPath(slug), { theme: 'storybook' }, { token: owner.token });
    const contributor = await newUser(t);
    await addMember(t, slug, contributor, 'contributor');
    const outsider = await newUser(t);
    for (const [who, status] of [
      [contributor, 403],
      [outsider, 404],
    ] as const) {
      expect((await t.post(exportsPath(slug), { theme: 'storybook' }, { token: who.token })).status).toBe(status);
      expect((await t.get(exportsPath(slug), { token: who.token })).status).toBe(status);
      expect((await t.get(`${exportsPath(slug)}${job.body.id}/`, { token: who.token })).status).toBe(status);
      expect((await t.get(`${exportsPath(slug)}${job.body.id}/artifact/`, { token: who.token })).status).toBe(status);
    }
  });

  it('404 for an unknown job, a malformed id, and another book’s job', async () => {
    const a = await exportBook(t, owner);
    const b = await exportBook(t, owner);
    const job = await t.post(exportsPath(a.slug), { theme: 'storybook' }, { token: owner.token });
    for (const url of [
      `${exportsPath(a.slug)}${crypto.randomUUID()}/`,
      `${exportsPath(a.slug)}${crypto.randomUUID()}/artifact/`,
      `${exportsPath(a.slug)}not-a-job/`,
      `${exportsPath(a.slug)}not-a-job/artifact/`,
      `${exportsPath(b.slug)}${job.body.id}/`,
      `${exportsPath(b.slug)}${job.body.id}/artifact/`,
    ]) {
      const res = await t.get(url, { token: owner.token });
      expect(res.status, url).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('409 export_not_ready while pending and while processing', async () => {
    const { slug } = await exportBook(t, owner);
    const job = await t.post(exportsPath(slug), { theme: 'storybook' }, { token: owner.token });
    const artifact = `${exportsPath(slug)}${job.body.id}/artifact/`;
    const pending = await t.get(artifact, { token: owner.token });
    expect(pending.status).toBe(409);
    expect(pending.body).toMatchObject({ code: 'export_not_ready', details: { status: 'pending' } });
    await t.db.query(`UPDATE exports SET status = 'processing', started_at = now() WHERE id = $1`, [job.body.id]);
    const processing = await t.get(artifact, { token: owner.token });
    expect(processing.status).toBe(409);
    expect(processing.body.details.status).toBe('processing');
  });
});

for (const store of STORES) {
  describe(`artifacts that cannot be served (${store} store)`, () => {
    let t: ExportTestApp;
    let owner: TestUser;
    let slug: string;
    beforeAll(async () => {
      t = await buildExportApp(store);
      owner = await newUser(t);
      slug = (await exportBook(t, owner)).slug;
      await approvedMemory(t, owner, slug, { text: 'A memory worth keeping' });
    });
    afterAll(() => t?.close());

    async function completed(format: 'pdf' | 'json' = 'json') {
      const res = await t.post(exportsPath(slug), { theme: 'heirloom_gallery', export_format: format }, { token: owner.token });
      const done = await settled(t, owner, slug, res.body.id);
      expect(done.body.status).toBe('complete');
      const [row] = await t.db.query<{ artifact_key: string }>(`SELECT artifact_key FROM exports WHERE id = $1`, [res.body.id]);
      return { id: res.body.id as string, url: `${exportsPath(slug)}${res.body.id}/artifact/`, key: row.artifact_key };
    }

    it('502 storage_unavailable with Retry-After when signing fails; the file is kept and served afterwards', async () => {
      const job = await completed();
      t.faults.sign = true;
      try {
        const res = await t.get(job.url, { token: owner.token });
        expect(res.status).toBe(502);
        expect(res.body.code).toBe('storage_unavailable');
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        t.faults.sign = false;
      }
      expect(await t.storedKeys()).toContain(job.key);
      expect((await t.get(job.url, { token: owner.token })).status).toBe(200);
    });

    it('502 when the store cannot be reached to look the file up', async () => {
      const job = await completed();
      t.faults.head = true;
      try {
        const res = await t.get(job.url, { token: owner.token });
        expect(res.status).toBe(502);
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        t.faults.head = false;
      }
      expect((await t.get(job.url, { token: owner.token })).status).toBe(200);
    });

    it('410 export_failed once the file is gone from the store', async () => {
      const job = await completed();
      await t.services.store.delete(job.key);
      const res = await t.get(job.url, { token: owner.token });
      expect(res.status).toBe(410);
      expect(res.body).toMatchObject({ code: 'export_failed', details: { reason: 'missing' } });
    });

    it('410 once the 7 days are over; the expiry job removes the file and the job row stays', async () => {
      const job = await completed('pdf');
      // Seven days later, as the clock sees it.
      await t.db.query(`UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = $1`, [job.id]);
      const res = await t.get(job.url, { token: owner.token });
      expect(res.status).toBe(410);
      expect(res.body).toMatchObject({ code: 'export_failed', details: { reason: 'expired' } });
      // The delayed export.expire job, due now.
      const [queued] = await t.db.query<{ id: string; start_after: string }>(
        `SELECT id, start_after FROM ${t.queue.schema}.job WHERE name = 'export.expire' AND data->>'exportId' = $1`,
        [job.id],
      );
      expect(Date.parse(queued.start_after) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
      await t.db.query(`UPDATE ${t.queue.schema}.job SET start_after = now() WHERE id = $1`, [queued.id]);
      await eventually(
        async () => (await t.db.query<{ artifact_removed_at: string | null }>(`SELECT artifact_removed_at FROM exports WHERE id = $1`, [job.id]))[0],
        (row) => row.artifact_removed_at !== null,
        20_000,
      );
      expect(await t.storedKeys()).not.toContain(job.key);
      expect((await t.get(job.url, { token: owner.token })).status).toBe(410);
      expect((await t.get(`${exportsPath(slug)}${job.id}/`, { token: owner.token })).body.status).toBe('complete');
    });

    it('410 export_failed when rendering failed for good, with the reason in error', async () => {
      t.faults.putExports = true;
      try {
        const res = await t.post(exportsPath(slug), { theme: 'editorial_noir', export_format: 'json' }, { token: owner.token });
        const done = await eventually(
          async () => {
            await hurryRetries(t, 'export.render');
            return t.get(`${exportsPath(slug)}${res.body.id}/`, { token: owner.token });
          },
          (r) => r.body.status === 'failed',
          120_000,
        );
        expect(done.body.error).toBe(`Export failed after 4 attempts: The finished file could not be saved to storage. (job ${res.body.id})`);
        expect(done.body.completed_at).not.toBeNull();
        const artifact = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
        expect(artifact.status).toBe(410);
        expect(artifact.body).toMatchObject({ code: 'export_failed', details: { reason: 'failed', error: done.body.error } });
        expect((await t.storedKeys()).filter((k) => k.includes(res.body.id))).toEqual([]);
      } finally {
        t.faults.putExports = false;
      }
    }, 150_000);
  });
}
