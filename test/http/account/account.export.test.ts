/**
 * POST /me/export/ and GET /me/export/{job_id}/: the GDPR data export, written
 * on the real queue into the real store (local disk; S3 for one happy path),
 * downloaded through its signed URL and read back as gzip-compressed JSON,
 * each media entry's original inside it (base64).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newSession, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import type { ObjectStore } from '../../../src/storage/object-store.js';
import { buildExportApp, fetchSigned, hurryRetries, type ExportTestApp } from '../exports/exports-setup.js';
import { processed, upload } from '../media/media-setup.js';
import { grantFor } from './account-helpers.js';

const EXPORT = '/api/v1/me/export/';
const DAY = 24 * 3600;
const DAY_MS = DAY * 1000;

let t: ExportTestApp;
beforeAll(async () => {
  t = await buildExportApp('local');
});
afterAll(() => t?.close());

async function requestExport(app: ExportTestApp, u: TestUser, key?: string) {
  return app.post(EXPORT, undefined, { token: u.token, idempotencyKey: key });
}

/** Polls the job until it is complete or failed. */
function settled(app: ExportTestApp, u: TestUser, id: string) {
  return eventually(
    () => app.get(`${EXPORT}${id}/`, { token: u.token }),
    (r) => r.status === 200 && (r.body.status === 'complete' || r.body.status === 'failed'),
    60_000,
  );
}

/** A complete export of the user's: its poll. */
async function exported(app: ExportTestApp, u: TestUser) {
  const res = await requestExport(app, u);
  expect(res.status, res.text).toBe(202);
  const done = await settled(app, u, res.body.id);
  expect(done.body.status, done.body.error).toBe('complete');
  return done.body;
}

/** The file behind a download link, as a client reads it: gzip by its magic bytes and type; raw text and parsed JSON. */
async function download(app: ExportTestApp, url: string) {
  const res = await fetchSigned(app, url);
  expect(res.status).toBe(200);
  expect(res.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip magic
  expect(res.headers['content-type']).toContain('application/gzip');
  const text = gunzipSync(res.body).toString('utf8');
  return { text, doc: JSON.parse(text), headers: res.headers };
}

/** A media entry's original, decoded from its base64. */
const bytesOf = (entry: any) => Buffer.from(entry.original.data, 'base64');

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const jobKey = (userId: string, id: string) => `account-exports/${userId}/${id}.json.gz`;
const shift = (userId: string, interval: string) =>
  t.db.query(
    `UPDATE exports SET created_at = created_at - $2::interval, completed_at = completed_at - $2::interval, expires_at = expires_at - $2::interval
     WHERE kind = 'account' AND account_id = $1`,
    [userId, interval],
  );

describe('POST /me/export/ and the file it makes', () => {
  it('answers 202 {id, status, created_at} with Location; the poll gets a signed link to gzip JSON of everything about the user, the originals of their files inside it, and nothing secret or of others', async () => {
    const u = await newUser(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const friend = await newUser(t, { firstName: 'Grace', lastName: 'Hopper' });
    await newSession(t, u);
    const own = await newBook(t, u, { title: 'Ada Book', plan: 'plus' });
    const friends = await newBook(t, friend, { title: 'Friends Book' });
    await addMember(t, friends.slug, u, 'contributor');
    await addMember(t, own.slug, friend, 'admin');
    const written = await newSubmission(t, friends.slug, u, { text: 'Ada wrote this memory' });
    const photo = await upload(t, u, friends.slug, written.id, await readFixture('png'), { filename: 'ada-photo.png' });
    expect(photo.status, photo.text).toBe(201);
    await newSubmission(t, own.slug, friend, { text: 'Grace wrote this one in Ada book' });
    await newSubmission(t, friends.slug, friend, { text: 'Grace private memory' });
    const invite = await t.post(`/api/v1/books/${own.slug}/invitations/`, { identifier_type: 'email', identifier: 'invitee@example.test' }, { token: u.token });
    expect(invite.status).toBe(201);
    await t.services.subscriptions.createSubscription({ slug: own.slug, email: u.email, kind: 'digest' });
    expect((await t.post('/api/v1/me/unsubscribe/digests/', undefined, { token: u.token })).status).toBe(200);
    await t.services.audit.record('web_signed_in', { userId: u.user.id, requestId: 'export-test-signin' });

    const res = await requestExport(t, u);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'status']);
    expect(res.body.status).toBe('pending');
    expect(res.headers.location).toBe(`${EXPORT}${res.body.id}/`);

    const done = await settled(t, u, res.body.id);
    const job = done.body;
    expect(job.status, job.error).toBe('complete');
    expect(job.error).toBeNull();
    expect(Date.parse(job.expires_at) - Date.parse(job.completed_at)).toBe(30 * DAY_MS);
    const urlLife = Date.parse(job.url_expires_at) - Date.now();
    expect(urlLife).toBeGreaterThan(3590 * 1000);
    expect(urlLife).toBeLessThanOrEqual(3600 * 1000);
    expect(await t.storedKeys()).toContain(jobKey(u.user.id, job.id));

    const { text, doc, headers } = await download(t, job.download_url);
    expect(headers['content-disposition']).toContain('.json.gz');
    expect(job.size_bytes).toBeGreaterThan(0);
    expect(doc.format_version).toBe(2);
    expect(Object.keys(doc)).toEqual([
      'format_version', 'exported_at', 'user', 'mail_streams', 'memberships', 'books_owned', 'submissions', 'media', 'transcriptions',
      'invitations_sent', 'subscriptions', 'book_slots', 'stripe_customers', 'stripe_checkouts', 'stripe_subscriptions', 'api_tokens',
      'web_sessions', 'audit_events', 'data_exports',
    ]);
    expect(doc.user).toMatchObject({ id: u.user.id, email: u.email, first_name: 'Ada', last_name: 'Lovelace', has_password: true });
    expect(doc.mail_streams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stream: 'digests', subscribed: false }),
        expect.objectContaining({ stream: 'onboarding', subscribed: true, unsubscribed_at: null }),
      ]),
    );
    expect(doc.memberships.map((m: any) => [m.book_slug, m.role]).sort()).toEqual([[friends.slug, 'contributor'], [own.slug, 'owner']].sort());
    expect(doc.books_owned.map((b: any) => b.slug)).toEqual([own.slug]);
    expect(doc.submissions).toEqual([expect.objectContaining({ id: written.id, book_slug: friends.slug, text_content: 'Ada wrote this memory' })]);
    expect(doc.media).toEqual([expect.objectContaining({ id: photo.body.id, submission_id: written.id, kind: 'image', original_filename: 'ada-photo.png' })]);
    expect(doc.media[0]).not.toHaveProperty('storage_key');
    // The original inside its entry: the bytes uploaded, base64.
    const png = await readFixture('png');
    expect(doc.media[0].original).toEqual({
      filename: 'ada-photo.png', content_type: 'image/png', size_bytes: png.length, sha256: sha256(png), encoding: 'base64', data: expect.any(String),
    });
    expect(doc.media[0].original_unavailable_reason).toBeNull();
    expect(sha256(bytesOf(doc.media[0]))).toBe(sha256(png));
    expect(doc.media[0].sha256).toBe(sha256(png));
    expect(doc.invitations_sent).toEqual([expect.objectContaining({ book_slug: own.slug, identifier: 'invitee@example.test', status: 'pending' })]);
    expect(doc.subscriptions).toEqual([expect.objectContaining({ book_slug: own.slug, kind: 'digest', channel: 'email', is_active: true })]);
    expect(doc.book_slots).toEqual([expect.objectContaining({ plan: 'plus', purchased: 1, used: 1 })]);
    expect(doc.api_tokens).toHaveLength(1);
    expect(Object.keys(doc.api_tokens[0]).sort()).toEqual(['created_at', 'last_used_at', 'name', 'revoked_at']);
    expect(doc.web_sessions).toHaveLength(1);
    expect(doc.audit_events.map((e: any) => e.request_id)).toContain('export-test-signin');
    expect(doc.data_exports.map((x: any) => x.id)).toEqual([job.id]);

    // No secret of the user's: the password hash, key hashes, the key itself, session and invitation tokens.
    const [secrets] = await t.db.query<{ password_hash: string }>(`SELECT password_hash FROM users WHERE id = $1`, [u.user.id]);
    expect(text).not.toContain(secrets.password_hash);
    expect(text).not.toContain(u.token);
    for (const h of await t.db.query<{ hex: string }>(
      `SELECT encode(token_hash, 'hex') AS hex FROM api_tokens WHERE user_id = $1 UNION ALL SELECT encode(token_hash, 'hex') FROM web_sessions WHERE user_id = $1
       UNION ALL SELECT encode(token_hash, 'hex') FROM invitations WHERE invited_by = $1`,
      [u.user.id],
    )) {
      expect(text).not.toContain(h.hex);
      expect(text).not.toContain(Buffer.from(h.hex, 'hex').toString('base64'));
    }
    expect(text).not.toMatch(/password_hash|token_hash|storage_key/);
    // Nothing of another user's: their memories (in Ada's book too), their address, their key.
    for (const other of ['Grace wrote this one in Ada book', 'Grace private memory', friend.email, friend.token, friend.user.id]) expect(text).not.toContain(other);
  });

  it('mints a fresh link on every poll, valid 60 minutes from that poll', async () => {
    const u = await newUser(t);
    const first = await exported(t, u);
    await new Promise((r) => setTimeout(r, 1100));
    const again = await t.get(`${EXPORT}${first.id}/`, { token: u.token });
    expect(again.status).toBe(200);
    expect(again.body.download_url).not.toBe(first.download_url);
    expect(Date.parse(again.body.url_expires_at)).toBeGreaterThan(Date.parse(first.url_expires_at));
    expect((await download(t, again.body.download_url)).doc.user.id).toBe(u.user.id);
  });

  it('pages through big tables: every row is in the file', async () => {
    const u = await newUser(t);
    await t.db.query(
      `INSERT INTO audit_events (id, event, user_id, request_id, created_at)
       SELECT gen_random_uuid(), 'export_test_event', $1, 'bulk-' || i, now() - make_interval(secs => i) FROM generate_series(1, 1234) AS i`,
      [u.user.id],
    );
    const job = await exported(t, u);
    const { doc } = await download(t, job.download_url);
    const bulk = doc.audit_events.filter((e: any) => e.event === 'export_test_event').map((e: any) => e.request_id);
    expect(bulk).toHaveLength(1234);
    expect(new Set(bulk).size).toBe(1234);
  });

  it('a media without its original carries original null with the reason: infected, awaiting its scan, gone from the store', async () => {
    const u = await newUser(t);
    const book = await newBook(t, u, { title: 'Gaps' });
    const memory = await newSubmission(t, book.slug, u, { text: 'Four photos' });
    const png = await readFixture('png');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const up = await upload(t, u, book.slug, memory.id, png, { filename: `p${i}.png` });
      expect(up.status, up.text).toBe(201);
      await processed(t, u, up.headers.location as string);
      ids.push(up.body.id);
    }
    const [kept, infected, pending, gone] = ids;
    await t.db.query(`UPDATE media SET scan_result = 'infected' WHERE id = $1`, [infected]);
    await t.db.query(`UPDATE media SET scan_result = 'pending' WHERE id = $1`, [pending]);
    const [{ storage_key }] = await t.db.query<{ storage_key: string }>(`SELECT storage_key FROM media WHERE id = $1`, [gone]);
    await t.services.store.delete(storage_key);

    const job = await exported(t, u);
    const { doc } = await download(t, job.download_url);
    const byId = new Map(doc.media.map((m: any) => [m.id, m]));
    expect(sha256(bytesOf(byId.get(kept)))).toBe(sha256(png));
    expect(byId.get(infected)).toMatchObject({ original: null, original_unavailable_reason: 'infected' });
    expect(byId.get(pending)).toMatchObject({ original: null, original_unavailable_reason: 'scan_pending' });
    expect(byId.get(gone)).toMatchObject({ original: null, original_unavailable_reason: 'missing' });
  });

  it('streams a 20 MB original: the worker never holds it whole (peak RSS growth sampled while it is written)', async () => {
    const u = await newUser(t);
    const book = await newBook(t, u, { title: 'Big' });
    const memory = await newSubmission(t, book.slug, u, { text: 'A big file' });
    const up = await upload(t, u, book.slug, memory.id, await readFixture('png'), { filename: 'big.png' });
    expect(up.status, up.text).toBe(201);
    await processed(t, u, up.headers.location as string);
    // The stored original becomes 20 MB of random bytes (incompressible), written a chunk at a time.
    const SIZE = 20 * 1024 * 1024;
    const hash = createHash('sha256');
    const chunks = (function* () {
      for (let left = SIZE; left > 0; left -= 65536) {
        const c = randomBytes(Math.min(65536, left));
        hash.update(c);
        yield c;
      }
    })();
    const [{ storage_key }] = await t.db.query<{ storage_key: string }>(`SELECT storage_key FROM media WHERE id = $1`, [up.body.id]);
    await t.services.store.put(storage_key, Readable.from(chunks), { contentType: 'image/png' });
    const digest = hash.digest('hex');
    await t.db.query(`UPDATE media SET size_bytes = $2, sha256 = $3 WHERE id = $1`, [up.body.id, SIZE, digest]);

    global.gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    let job;
    try {
      job = await exported(t, u);
    } finally {
      clearInterval(sampler);
    }
    const growthMb = (peak - base) / 1048576;
    console.log(`account export of a 20 MB original: peak RSS growth ${growthMb.toFixed(1)} MB (base ${(base / 1048576).toFixed(0)} MB)`);
    // Whole in memory it would be at least the file and its base64 (20 + 27 MB); streamed it is a few chunks plus the heap's noise.
    expect(growthMb).toBeLessThan(20);
    const { doc } = await download(t, job.download_url);
    expect(doc.media[0].original.size_bytes).toBe(SIZE);
    expect(sha256(bytesOf(doc.media[0]))).toBe(digest);
  });

  it('shows a job that is not complete without a link', async () => {
    const u = await newUser(t);
    const id = crypto.randomUUID();
    await t.db.query(`INSERT INTO exports (id, kind, account_id, requested_by) VALUES ($1, 'account', $2, $2)`, [id, u.user.id]);
    const res = await t.get(`${EXPORT}${id}/`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'pending', completed_at: null, expires_at: null, download_url: null, url_expires_at: null, error: null });
  });
});

describe('one export per 24 hours', () => {
  it('a second request within 24 hours is 429 rate_limited with Retry-After until the 24 hours are up, whatever the key', async () => {
    const u = await newUser(t);
    expect((await requestExport(t, u)).status).toBe(202);
    const again = await requestExport(t, u);
    expect(again.status).toBe(429);
    expect(again.body.code).toBe('rate_limited');
    expect(again.headers['x-ratelimit-limit']).toBe('1');
    expect(again.headers['x-ratelimit-remaining']).toBe('0');
    const wait = Number(again.headers['retry-after']);
    expect(wait).toBeGreaterThan(DAY - 60);
    expect(wait).toBeLessThanOrEqual(DAY);

    // A browser session is the same user.
    const session = await newSession(t, u);
    const browser = { cookie: session.cookie, 'x-csrftoken': session.csrf, referer: `${session.origin}/settings/tokens/` };
    expect((await t.post(EXPORT, undefined, { headers: browser })).status).toBe(429);

    await shift(u.user.id, '23 hours');
    const later = await requestExport(t, u);
    expect(later.status).toBe(429);
    expect(Number(later.headers['retry-after'])).toBeGreaterThan(3600 - 60);
    expect(Number(later.headers['retry-after'])).toBeLessThanOrEqual(3600);

    await shift(u.user.id, '1 hour 1 minute');
    expect((await requestExport(t, u)).status).toBe(202);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM exports WHERE kind = 'account' AND account_id = $1`, [u.user.id]);
    expect(n).toBe(2);
  });

  it('answers a replay (same key) with the stored 202 before the limit, and it never counts', async () => {
    const u = await newUser(t);
    const key = crypto.randomUUID();
    const first = await requestExport(t, u, key);
    expect(first.status).toBe(202);
    for (let i = 0; i < 3; i++) {
      const replay = await requestExport(t, u, key);
      expect(replay.status).toBe(202);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.location).toBe(first.headers.location);
    }
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM exports WHERE kind = 'account' AND account_id = $1`, [u.user.id]);
    expect(n).toBe(1);

    // A 429 is not stored: the same key runs again once the 24 hours are up.
    const other = crypto.randomUUID();
    expect((await requestExport(t, u, other)).status).toBe(429);
    await shift(u.user.id, '25 hours');
    const retried = await requestExport(t, u, other);
    expect(retried.status).toBe(202);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    // The first key still replays its own job.
    expect((await requestExport(t, u, key)).body.id).toBe(first.body.id);
  });

  it('two requests at once with different keys: one 202, one 429', async () => {
    const u = await newUser(t);
    const answers = await Promise.all([requestExport(t, u), requestExport(t, u), requestExport(t, u)]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 429, 429]);
  });

  it('the limit comes before schema validation (the contract order), and a refused body creates nothing', async () => {
    const u = await newUser(t);
    const bad = await t.post(EXPORT, { format: 'csv' }, { token: u.token });
    expect(bad.status).toBe(422);
    expect(await t.db.query(`SELECT 1 FROM exports WHERE kind = 'account' AND account_id = $1`, [u.user.id])).toEqual([]);
    expect((await requestExport(t, u)).status).toBe(202);
    expect((await t.post(EXPORT, { format: 'csv' }, { token: u.token })).status).toBe(429);
  });

  it('needs an Idempotency-Key and a credential', async () => {
    const u = await newUser(t);
    expect((await t.post(EXPORT, undefined, { token: u.token, idempotencyKey: false })).status).toBe(428);
    expect((await t.post(EXPORT, undefined, {})).status).toBe(401);
    expect((await t.get(`${EXPORT}${crypto.randomUUID()}/`)).status).toBe(401);
  });
});

describe('GET /me/export/{job_id}/', () => {
  it("another user's job, an unknown id and a malformed one are 404", async () => {
    const a = await newUser(t);
    const b = await newUser(t);
    const job = await exported(t, a);
    for (const id of [job.id, crypto.randomUUID(), 'not-an-id', '1']) {
      const res = await t.get(`${EXPORT}${id}/`, { token: b.token });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await t.get(`${EXPORT}${job.id}/`, { token: a.token })).status).toBe(200);
  });

  it('502 storage_unavailable with Retry-After when the link cannot be signed; the file is kept', async () => {
    const u = await newUser(t);
    const job = await exported(t, u);
    t.faults.sign = true;
    try {
      const res = await t.get(`${EXPORT}${job.id}/`, { token: u.token });
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('storage_unavailable');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      t.faults.sign = false;
    }
    const ok = await t.get(`${EXPORT}${job.id}/`, { token: u.token });
    expect(ok.status).toBe(200);
    expect((await download(t, ok.body.download_url)).doc.user.id).toBe(u.user.id);
  });
});

describe('a store that refuses the file', () => {
  it('is retried, then the export fails with a reason; it does not count against the day', async () => {
    const u = await newUser(t);
    const store = t.services.store as ObjectStore;
    const original = Object.getOwnPropertyDescriptor(store, 'put')!;
    const realPut = store.put.bind(store);
    store.put = async (key, body, o) => {
      if (!key.startsWith('account-exports/')) return realPut(key, body, o);
      body.destroy();
      throw Object.assign(new Error('test: the store refused the write'), { code: 'ECONNRESET' });
    };
    try {
      const res = await requestExport(t, u);
      const done = await eventually(
        async () => {
          await hurryRetries(t, 'account.export');
          return t.get(`${EXPORT}${res.body.id}/`, { token: u.token });
        },
        (r) => r.body.status === 'failed',
        60_000,
      );
      expect(done.body.error).toMatch(/^Export failed after 3 attempts: The file could not be saved to storage\./);
      expect(done.body).toMatchObject({ download_url: null, url_expires_at: null, expires_at: null, size_bytes: null });
      expect((await t.storedKeys()).filter((k) => k.startsWith(`account-exports/${u.user.id}/`))).toEqual([]);
    } finally {
      Object.defineProperty(store, 'put', original);
    }
    expect((await requestExport(t, u)).status).toBe(202);
  });
});

describe('retention and deletion', () => {
  it('after 30 days the export reads as expired and the cleanup removes its file', async () => {
    const u = await newUser(t);
    const job = await exported(t, u);
    const key = jobKey(u.user.id, job.id);
    await shift(u.user.id, '30 days');

    // Past its 30 days it is expired at once, before the cleanup has run.
    const due = await t.get(`${EXPORT}${job.id}/`, { token: u.token });
    expect(due.status).toBe(200);
    expect(due.body).toMatchObject({ status: 'expired', download_url: null, url_expires_at: null, size_bytes: null });
    expect(Date.parse(due.body.expires_at)).toBeLessThanOrEqual(Date.now());

    // The cleanup was queued for 30 days after completion: make it due now, and the worker runs it.
    const made = await t.db.query(
      `UPDATE ${t.queue.schema}.job SET start_after = now() WHERE name = 'account.export-expire' AND state = 'created' AND data->>'exportId' = $1 RETURNING id`,
      [job.id],
    );
    expect(made).toHaveLength(1);
    await eventually(async () => !(await t.storedKeys()).includes(key));
    await eventually(async () => (await t.db.query(`SELECT 1 FROM exports WHERE id = $1 AND status = 'complete' AND artifact_removed_at IS NOT NULL`, [job.id])).length === 1);
    const after = await t.get(`${EXPORT}${job.id}/`, { token: u.token });
    expect(after.body).toMatchObject({ status: 'expired', download_url: null });
    // The old link leads nowhere.
    expect((await fetchSigned(t, job.download_url)).status).toBeGreaterThanOrEqual(400);
  });

  it('deleting the account removes its exports, rows and files', async () => {
    const u = await newUser(t);
    const job = await exported(t, u);
    const key = jobKey(u.user.id, job.id);
    expect(await t.storedKeys()).toContain(key);
    const del = await t.post('/api/v1/me/delete/', { reauth_token: await grantFor(t, u) }, { token: u.token });
    expect(del.status).toBe(200);
    await eventually(async () => (await t.db.query(`SELECT 1 FROM exports WHERE kind = 'account' AND account_id = $1`, [u.user.id])).length === 0, Boolean, 30_000);
    await eventually(async () => !(await t.storedKeys()).includes(key), Boolean, 30_000);
  });
});

describe('on S3', () => {
  let s3: ExportTestApp;
  beforeAll(async () => {
    s3 = await buildExportApp('s3');
  });
  afterAll(() => s3?.close());

  it('writes the file to the bucket and serves it from a presigned URL valid 60 minutes', async () => {
    const u = await newUser(s3, { firstName: 'Bucket' });
    const book = await newBook(s3, u, { title: 'Bucket Book' });
    const memory = await newSubmission(s3, book.slug, u, { text: 'With two files' });
    const uploads: { id: string; bytes: Buffer }[] = [];
    for (const [kind, filename] of [['jpeg', 'a.jpg'], ['png', 'b.png']] as const) {
      const bytes = await readFixture(kind);
      const up = await upload(s3, u, book.slug, memory.id, bytes, { filename });
      expect(up.status, up.text).toBe(201);
      uploads.push({ id: up.body.id, bytes });
    }
    const res = await requestExport(s3, u);
    expect(res.status).toBe(202);
    const done = await settled(s3, u, res.body.id);
    expect(done.body.status, done.body.error).toBe('complete');
    expect(await s3.storedKeys()).toContain(jobKey(u.user.id, res.body.id));
    expect(new URL(done.body.download_url).searchParams.get('X-Amz-Expires')).toBe('3600');
    const { doc, text } = await download(s3, done.body.download_url);
    expect(doc.user).toMatchObject({ id: u.user.id, email: u.email, first_name: 'Bucket' });
    // Each original from the bucket, byte for byte.
    expect(doc.media.map((m: any) => m.id).sort()).toEqual(uploads.map((m) => m.id).sort());
    for (const m of uploads) {
      const entry = doc.media.find((d: any) => d.id === m.id);
      expect(sha256(bytesOf(entry)), entry.id).toBe(sha256(m.bytes));
      expect(entry.original.sha256).toBe(sha256(m.bytes));
    }
    expect(text).not.toContain(u.token);
  });
});
