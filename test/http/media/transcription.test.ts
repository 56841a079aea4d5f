/**
 * Transcription on request over HTTP, with the worker running and a local
 * provider speaking OpenAI's audio/transcriptions (multipart in,
 * verbose_json out): the lifecycle, retries on the provider's failures,
 * permanent failure with its event, the gates, access, an owner's edit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { startTranscriptionServer, type TestTranscriptionServer } from '../../helpers/transcription-server.js';
import { processed, upload } from './media-setup.js';

const KEY = 'sk-test-transcription-0123456789';

describe('transcription on request', () => {
  let t: TestApp;
  let provider: TestTranscriptionServer;
  let owner: TestUser;

  beforeAll(async () => {
    provider = await startTranscriptionServer({ apiKey: KEY });
    t = await buildTestApp({
      worker: true,
      env: { TRANSCRIPTION_URL: provider.url, TRANSCRIPTION_API_KEY: KEY, TRANSCRIPTION_MODEL: 'whisper-1', TRANSCRIPTION_RETRY_SECONDS: '0', TRANSCRIPTION_MAX_ATTEMPTS: '3' },
    });
    owner = await newUser(t);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  /** A processed voice note (or video, or photo) in a memory of a book on `plan`. */
  async function recording(o: { plan?: string; fixture?: 'mp3' | 'mp4' | 'jpeg'; settings?: Record<string, unknown> } = {}) {
    const book = await newBook(t, owner, { plan: o.plan ?? 'plus' });
    if (o.settings) expect((await t.patch(`/api/v1/books/${book.slug}/`, { settings: o.settings }, { token: owner.token })).status).toBe(200);
    const sub = await newSubmission(t, book.slug, owner);
    const fixture = o.fixture ?? 'mp3';
    const bytes = await readFixture(fixture);
    const res = await upload(t, owner, book.slug, sub.id, bytes, { filename: `grandma.${fixture === 'jpeg' ? 'jpg' : fixture}` });
    expect(res.status).toBe(201);
    const location = res.headers.location as string;
    await processed(t, owner, location);
    return { slug: book.slug, subId: sub.id, mediaId: res.body.id as string, url: `${location}transcription/`, bytes };
  }

  const done = (url: string, token = owner.token) =>
    eventually(
      () => t.get(url, { token }),
      (r) => r.status === 200 && (r.body.status === 'completed' || r.body.status === 'failed'),
      30_000,
    );

  const eventsOf = async (slug: string, type: string) => (await t.get('/api/v1/events/', { token: owner.token, query: { type, book_slug: slug } })).body.items as any[];

  it('pending → completed with segments and the language; the recording streamed to the provider as multipart', async () => {
    const r = await recording();
    expect((await t.get(r.url, { token: owner.token })).status).toBe(404);
    const before = provider.received.length;
    const res = await t.post(r.url, undefined, { token: owner.token });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ media_id: r.mediaId, submission_id: r.subId, status: 'pending', text: null, segments: [], edited: false, failure_reason: null, completed_at: null });
    expect(res.headers.etag).toBe(res.body.etag);

    const got = await done(r.url);
    expect(got.body).toMatchObject({
      status: 'completed',
      language: 'en',
      text: `This is a voice note of ${r.bytes.length} bytes. Happy birthday, we love you.`,
      edited: false,
      segments: [
        { start: 0, end: 1.5, text: `This is a voice note of ${r.bytes.length} bytes.` },
        { start: 1.5, end: 3.25, text: 'Happy birthday, we love you.' },
      ],
    });
    expect(got.body.completed_at).toEqual(expect.any(String));

    const sent = provider.received.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].authorization).toBe(`Bearer ${KEY}`);
    expect(sent[0].contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent[0].transferEncoding).toBe('chunked'); // streamed: no length known up front, no buffered body
    expect(sent[0].fields).toMatchObject({ model: ['whisper-1'], response_format: ['verbose_json'], 'timestamp_granularities[]': ['segment'] });
    expect(sent[0].fields.language).toBeUndefined(); // detected by the provider
    expect(sent[0].file).toMatchObject({ filename: 'grandma.mp3', mimeType: 'audio/mpeg', bytes: r.bytes.length });

    const [event] = await eventsOf(r.slug, 'transcription.completed');
    expect(event.data.object).toMatchObject({ media_id: r.mediaId, status: 'completed', language: 'en' });

    // Asked again while one exists: the existing one, 200, nothing sent.
    const again = await t.post(r.url, undefined, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'completed', etag: got.body.etag });
    await new Promise((ok) => setTimeout(ok, 300));
    expect(provider.received.length).toBe(before + 1);
  });

  it("takes the language from the book's settings.language", async () => {
    const r = await recording({ settings: { language: 'de' } });
    const before = provider.received.length;
    expect((await t.post(r.url, undefined, { token: owner.token })).status).toBe(202);
    const got = await done(r.url);
    expect(got.body).toMatchObject({ status: 'completed', language: 'de' });
    expect(provider.received[before].fields.language).toEqual(['de']);
  });

  it('sends only the audio track of a video (MP3 from ffmpeg), streamed', async () => {
    const r = await recording({ plan: 'premium', fixture: 'mp4' });
    const before = provider.received.length;
    expect((await t.post(r.url, undefined, { token: owner.token })).status).toBe(202);
    const got = await done(r.url);
    expect(got.body.status).toBe('completed');
    const sent = provider.received[before];
    expect(sent.file).toMatchObject({ filename: 'grandma.mp3', mimeType: 'audio/mpeg' });
    expect(sent.file!.bytes).toBeGreaterThan(1000);
    expect(sent.file!.bytes).toBeLessThan(r.bytes.length);
    // An MP3 stream: an ID3 tag or an MPEG frame sync.
    expect(sent.file!.head.subarray(0, 3).toString('latin1') === 'ID3' || (sent.file!.head[0] === 0xff && (sent.file!.head[1] & 0xe0) === 0xe0)).toBe(true);
  });

  it('retries a provider 500 and a 429 (honouring Retry-After), then completes', async () => {
    const r = await recording();
    const before = provider.received.length;
    provider.script({ status: 500 }, { status: 429, headers: { 'retry-after': '1' } });
    const started = Date.now();
    expect((await t.post(r.url, undefined, { token: owner.token })).status).toBe(202);
    const got = await done(r.url);
    expect(got.body).toMatchObject({ status: 'completed', failure_reason: null });
    expect(provider.received.length - before).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // the Retry-After was waited out
    expect(await eventsOf(r.slug, 'transcription.failed')).toHaveLength(0);
  });

  it('fails for good after the attempts are spent, with a reason and transcription.failed; asking again starts over', async () => {
    const r = await recording();
    provider.failAlways({ status: 503 });
    try {
      expect((await t.post(r.url, undefined, { token: owner.token })).status).toBe(202);
      const got = await done(r.url);
      expect(got.body.status).toBe('failed');
      expect(got.body.failure_reason).toMatch(/kept failing \(3 attempts; last: 503/);
      expect(got.body.text).toBeNull();
      const [event] = await eventsOf(r.slug, 'transcription.failed');
      expect(event.data.object).toMatchObject({ media_id: r.mediaId, status: 'failed', failure_reason: got.body.failure_reason });
    } finally {
      provider.failAlways(null);
    }
    const again = await t.post(r.url, undefined, { token: owner.token });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'pending', failure_reason: null });
    expect((await done(r.url)).body.status).toBe('completed');
  });

  it('a refusal (400) fails at once, without retries', async () => {
    const r = await recording();
    const before = provider.received.length;
    provider.script({ status: 400, body: { error: { message: 'Invalid file format.', type: 'invalid_request_error', param: 'file', code: null } } });
    expect((await t.post(r.url, undefined, { token: owner.token })).status).toBe(202);
    const got = await done(r.url);
    expect(got.body).toMatchObject({ status: 'failed' });
    expect(got.body.failure_reason).toContain('refused the recording (400: Invalid file format.)');
    expect(provider.received.length - before).toBe(1);
  });

  it("keeps an owner's edit (If-Match, 412 when stale), and across a repeated request", async () => {
    const r = await recording();
    await t.post(r.url, undefined, { token: owner.token });
    const got = await done(r.url);
    const stale = await t.patch(r.url, { text: 'x' }, { token: owner.token, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.details.current_etag).toBe(got.body.etag);
    const edit = await t.patch(r.url, { text: '  Happy birthday, Grandma! We all love you.  ' }, { token: owner.token, headers: { 'if-match': got.body.etag } });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ status: 'completed', edited: true, text: 'Happy birthday, Grandma! We all love you.' });
    expect(edit.body.segments).toEqual(got.body.segments);
    expect(edit.body.etag).not.toBe(got.body.etag);
    const again = await t.post(r.url, undefined, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ edited: true, text: 'Happy birthday, Grandma! We all love you.' });
    expect((await t.get(r.url, { token: owner.token })).body.text).toBe('Happy birthday, Grandma! We all love you.');
    expect((await t.patch(r.url, { text: '' }, { token: owner.token })).status).toBe(422); // the schema's minLength
    const blank = await t.patch(r.url, { text: '   ' }, { token: owner.token });
    expect(blank.status).toBe(400);
    expect(blank.body.code).toBe('validation_failed');
  });

  it('refuses a photo: 400 validation_failed, details.reason not_audio', async () => {
    const r = await recording({ fixture: 'jpeg' });
    const res = await t.post(r.url, undefined, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: { reason: 'not_audio', field: 'media_id' } });
  });

  it('gates on feature_transcription: 403 feature_gated on a plan without it', async () => {
    const r = await recording();
    await t.db.query(`UPDATE books SET plan_slug = 'free' WHERE slug = $1`, [r.slug]);
    const res = await t.post(r.url, undefined, { token: owner.token });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'feature_gated', details: { feature: 'feature_transcription' } });
  });

  it('owner and admin only: a contributor gets 403, an outsider 404, on every verb', async () => {
    const r = await recording();
    await t.post(r.url, undefined, { token: owner.token });
    await done(r.url);
    const admin = await newUser(t);
    const contributor = await newUser(t);
    const outsider = await newUser(t);
    await addMember(t, r.slug, admin, 'admin');
    await addMember(t, r.slug, contributor, 'contributor');
    expect((await t.get(r.url, { token: admin.token })).status).toBe(200);
    expect((await t.patch(r.url, { text: 'By the admin.' }, { token: admin.token })).status).toBe(200);
    for (const [who, status, code] of [
      [contributor, 403, 'insufficient_role'],
      [outsider, 404, 'not_found'],
    ] as const) {
      for (const res of [await t.get(r.url, { token: who.token }), await t.post(r.url, undefined, { token: who.token }), await t.patch(r.url, { text: 'mine' }, { token: who.token })]) {
        expect(res.status).toBe(status);
        expect(res.body.code).toBe(code);
      }
    }
  });

  it('transcribes on arrival when the book asks for it (settings.transcribe_automatically)', async () => {
    const r = await recording({ settings: { transcribe_automatically: true } });
    const got = await done(r.url);
    expect(got.body).toMatchObject({ status: 'completed', media_id: r.mediaId });
  });
});

describe('transcription without a provider configured', () => {
  it('answers 409 transcription_unavailable', async () => {
    const t = await buildTestApp({ worker: true });
    const owner = await newUser(t);
    const book = await newBook(t, owner, { plan: 'plus' });
    const sub = await newSubmission(t, book.slug, owner);
    const res = await upload(t, owner, book.slug, sub.id, await readFixture('mp3'), { filename: 'note.mp3' });
    const location = res.headers.location as string;
    await processed(t, owner, location);
    const post = await t.post(`${location}transcription/`, undefined, { token: owner.token });
    expect(post.status).toBe(409);
    expect(post.body.code).toBe('transcription_unavailable');
    expect((await t.get(`${location}transcription/`, { token: owner.token })).status).toBe(404);
  });
});
