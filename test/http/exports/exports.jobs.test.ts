/**
 * The life of an export job on the queue: processing once a worker takes
 * it, a failed render retried, a spare run recording a render that never
 * came back, a last run cut off by a shutdown left to run again, and a deleted book taking its export files with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerStoppedError } from '../../../src/jobs/job-catalog.js';
import { uuidv7 } from '../../../src/lib/ids.js';
import { eventually } from '../../helpers/eventually.js';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { approvedMemory, buildExportApp, exportBook, exportsPath, hurryRetries, settled, STORES, type ExportTestApp } from './exports-setup.js';

for (const store of STORES) {
  describe(`export jobs (${store} store)`, () => {
    let t: ExportTestApp;
    let owner: TestUser;
    let slug: string;
    beforeAll(async () => {
      t = await buildExportApp(store);
      owner = await newUser(t);
      slug = (await exportBook(t, owner)).slug;
      await approvedMemory(t, owner, slug, { text: 'Remember the picnic?' });
    });
    afterAll(() => t?.close());

    it('is processing once a worker has taken it, and complete when the file is stored', async () => {
      let release!: () => void;
      t.faults.holdExports = new Promise<void>((r) => (release = r));
      try {
        const res = await t.post(exportsPath(slug), { theme: 'wedding_album' }, { token: owner.token });
        expect(res.body.status).toBe('pending');
        const running = await eventually(
          () => t.get(`${exportsPath(slug)}${res.body.id}/`, { token: owner.token }),
          (r) => r.body.status === 'processing',
        );
        expect(running.body.started_at).not.toBeNull();
        expect(running.body.completed_at).toBeNull();
        expect((await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token })).body).toMatchObject({
          code: 'export_not_ready',
          details: { status: 'processing' },
        });
        release();
        expect((await settled(t, owner, slug, res.body.id)).body.status).toBe('complete');
      } finally {
        release?.();
        t.faults.holdExports = undefined;
      }
    });

    it('retries a render that failed, and completes', async () => {
      t.faults.failExportPuts = 1;
      const res = await t.post(exportsPath(slug), { theme: 'daily_journal', export_format: 'json' }, { token: owner.token });
      const done = await eventually(
        async () => {
          await hurryRetries(t, 'export.render');
          return t.get(`${exportsPath(slug)}${res.body.id}/`, { token: owner.token });
        },
        (r) => r.body.status === 'complete',
        60_000,
      );
      expect(done.body.error).toBeNull();
      const [row] = await t.db.query<{ attempts: number }>(`SELECT attempts FROM exports WHERE id = $1`, [res.body.id]);
      expect(row.attempts).toBe(2);
      expect(t.faults.failExportPuts).toBe(0);
    });

    it('records a render that never came back as failed, on the spare run after the last', async () => {
      // A job row as a request makes it, without its queue job (this test plays the queue's part).
      const [{ id: bookId }] = await t.db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [slug]);
      const id = uuidv7();
      await t.db.query(
        `INSERT INTO exports (id, kind, book_id, requested_by, theme, intent, export_format, bleed_mm, gutter_mm) VALUES ($1, 'book', $2, $3, 'storybook', 'screen', 'pdf', 0, 0)`,
        [id, bookId, owner.user.id],
      );
      // The queue's fifth run of the job: the fourth (the last render) died with its worker.
      await t.services.exportPipeline.run(id, { signal: new AbortController().signal, attempt: 5, attempts: 4 });
      const job = await t.get(`${exportsPath(slug)}${id}/`, { token: owner.token });
      expect(job.body).toMatchObject({ status: 'failed', error: `Export failed after 4 attempts: rendering did not finish (job ${id}).` });
      expect(job.body.completed_at).not.toBeNull();
    });

    it('leaves a last run cut off by its worker stopping to be run again, not failed', async () => {
      const [{ id: bookId }] = await t.db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [slug]);
      const id = uuidv7();
      await t.db.query(
        `INSERT INTO exports (id, kind, book_id, requested_by, theme, intent, export_format, bleed_mm, gutter_mm) VALUES ($1, 'book', $2, $3, 'storybook', 'screen', 'json', 0, 0)`,
        [id, bookId, owner.user.id],
      );
      let release!: () => void;
      t.faults.holdExports = new Promise<void>((r) => (release = r));
      const stopping = new AbortController();
      try {
        // The queue's fourth and last run, held mid-render while its worker shuts down past its timeout.
        const run = t.services.exportPipeline.run(id, { signal: stopping.signal, attempt: 4, attempts: 4 });
        const outcome = run.then(
          () => 'finished',
          () => 'rejected',
        );
        await eventually(
          () => t.get(`${exportsPath(slug)}${id}/`, { token: owner.token }),
          (r) => r.body.status === 'processing',
        );
        stopping.abort(new WorkerStoppedError());
        release();
        expect(await outcome).toBe('rejected'); // given back to the queue, which runs it again uncounted
      } finally {
        release?.();
        t.faults.holdExports = undefined;
      }
      const left = await t.get(`${exportsPath(slug)}${id}/`, { token: owner.token });
      expect(left.body).toMatchObject({ status: 'processing', error: null });
      // Another worker's run of the same attempt completes it.
      await t.services.exportPipeline.run(id, { signal: new AbortController().signal, attempt: 4, attempts: 4 });
      const done = await t.get(`${exportsPath(slug)}${id}/`, { token: owner.token });
      expect(done.body).toMatchObject({ status: 'complete', error: null });
    });

    it('removes the export files of a deleted book with the rest of its files', async () => {
      const book = await exportBook(t, owner);
      await approvedMemory(t, owner, book.slug, { text: 'Soon gone' });
      const pdf = await t.post(exportsPath(book.slug), { theme: 'memorial_service' }, { token: owner.token });
      const zip = await t.post(exportsPath(book.slug), { theme: 'memorial_service', export_format: 'zip' }, { token: owner.token });
      for (const job of [pdf, zip]) expect((await settled(t, owner, book.slug, job.body.id)).body.status).toBe('complete');
      const [{ id: bookId }] = await t.db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [book.slug]);
      expect((await t.storedKeys()).filter((k) => k.startsWith(`exports/${bookId}/`))).toHaveLength(2);
      expect((await t.delete(`/api/v1/books/${book.slug}/`, { token: owner.token })).status).toBe(204);
      await eventually(async () => (await t.storedKeys()).filter((k) => k.startsWith(`exports/${bookId}/`)).length === 0, Boolean, 30_000);
      const rows = await t.db.query(`SELECT id FROM exports WHERE book_id = $1`, [bookId]);
      expect(rows).toEqual([]);
    });
  });
}
