/**
 * Images scanned by a real clamd (loaded with a test signature for the
 * EICAR string): clean files are downloadable, an infected one never is and
 * holds approval back; audio and video are skipped by policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clamdSkipReason, EICAR_SIGNATURE, startClamd, type RunningClamd } from '../../helpers/clamd.js';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { buildMediaApp, processed, upload, type MediaTestApp } from './media-setup.js';

const skip = clamdSkipReason();
if (skip) console.warn(skip);

describe.skipIf(Boolean(skip))('media scanned by ClamAV', () => {
  let clamd: RunningClamd;
  let t: MediaTestApp;
  let owner: TestUser;
  beforeAll(async () => {
    clamd = await startClamd();
    t = await buildMediaApp('local', { env: { CLAMAV_HOST: clamd.host, CLAMAV_PORT: String(clamd.port) } });
    owner = await newUser(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await clamd?.stop();
  });

  it('a clean image: scan_result pending until scanned, no URL meanwhile, then clean and downloadable', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const res = await upload(t, owner, book.slug, sub.id, await readFixture('jpeg'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ scan_result: 'pending', download_url: null, download_status: 'unavailable' });
    const done = await processed(t, owner, res.headers.location as string);
    expect(done.body).toMatchObject({ processing_status: 'complete', scan_result: 'clean', download_status: 'available' });
    expect(done.body.download_url).toEqual(expect.any(String));
  });

  it('an infected image: scan_result infected, never downloadable, and approval is refused', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const res = await upload(t, owner, book.slug, sub.id, await readFixture('eicarJpeg'));
    expect(res.status).toBe(201);
    const done = await processed(t, owner, res.headers.location as string);
    expect(done.body).toMatchObject({ scan_result: 'infected', download_url: null, download_status: 'unavailable', thumbnail_url: null });
    const [row] = await t.db.query<{ scan_signature: string }>(`SELECT scan_signature FROM media WHERE id = $1`, [res.body.id]);
    expect(row.scan_signature).toContain(EICAR_SIGNATURE);
    const submission = await t.get(`/api/v1/books/${book.slug}/submissions/${sub.id}/`, { token: owner.token });
    expect(submission.body.media[0]).toMatchObject({ scan_result: 'infected', download_url: null });
    const approve = await t.post(`/api/v1/books/${book.slug}/submissions/${sub.id}/approve/`, undefined, { token: owner.token });
    expect(approve.status).toBe(400);
    expect(approve.body.details.media[0]).toMatchObject({ id: res.body.id, scan_result: 'infected' });
  });

  it('audio and video are skipped by policy, not scanned', async () => {
    const book = await newBook(t, owner, { plan: 'premium' });
    const sub = await newSubmission(t, book.slug, owner);
    const res = await upload(t, owner, book.slug, sub.id, await readFixture('mp4'));
    expect(res.body.scan_result).toBe('skipped_by_policy');
    expect(res.body.download_status).toBe('available');
  });

  it('a scanner that is down never reports clean: the file stays unscanned and processing fails once retries are spent', async () => {
    const book = await newBook(t, owner);
    const sub = await newSubmission(t, book.slug, owner);
    const res = await upload(t, owner, book.slug, sub.id, await readFixture('png'));
    await processed(t, owner, res.headers.location as string);
    // Run processing again by hand against a port where no clamd listens.
    const { createMediaProcessing } = await import('../../../src/services/media/media-processing.js');
    const { createClamavScanner } = await import('../../../src/media-tools/virus-scanner.js');
    await t.db.query(`UPDATE media SET processing_status = 'pending', scan_result = 'pending' WHERE id = $1`, [res.body.id]);
    const processing = createMediaProcessing({ db: t.db, config: t.config, store: t.services.store, scanner: createClamavScanner({ host: '127.0.0.1', port: 1, timeoutMs: 2000 }) });
    await expect(processing.process(res.body.id, { signal: new AbortController().signal, lastAttempt: false })).rejects.toThrow();
    await processing.process(res.body.id, { signal: new AbortController().signal, lastAttempt: true });
    const after = await t.get(res.headers.location as string, { token: owner.token });
    expect(after.body).toMatchObject({ processing_status: 'failed', scan_result: 'pending', download_url: null });
  });
});
