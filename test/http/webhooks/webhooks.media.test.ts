/**
 * Photos, voice notes and videos sent over SMS/MMS, Telegram and WhatsApp:
 * fetched by the worker from the provider's own host with its credentials
 * (the test provider server checks them), streamed through the media intake
 * and attached to the memory. A media URL on another host is never
 * requested; a refused file leaves the memory with its words and the sender
 * is told over the same channel.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { newBook, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { startProviderServer, type TestProviderServer } from '../../helpers/provider-server.js';
import { messagingEnv, newPhone, postSms, postTelegram, postWhatsApp, smsParams, TELEGRAM, telegramUpdate, TWILIO, WHATSAPP, whatsappEnv, whatsappPayload } from './webhook-helpers.js';

let t: TestApp;
let provider: TestProviderServer;
/** Another host: a media URL pointing here must never be requested. */
let elsewhere: Server;
let elsewhereUrl: string;
const elsewhereHits: string[] = [];

beforeAll(async () => {
  provider = await startProviderServer({
    credentials: { twilio: { accountSid: TWILIO.sid, authToken: TWILIO.authToken }, telegram: { botToken: TELEGRAM.token }, whatsapp: { accessToken: WHATSAPP.accessToken } },
  });
  elsewhere = createServer((req, res) => {
    elsewhereHits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.end('not for you');
  });
  await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  t = await buildTestApp({ env: { ...messagingEnv(provider.url), ...whatsappEnv(provider.url) }, worker: true });
}, 60_000);
afterAll(async () => {
  await t.close();
  await provider.close();
  elsewhere.closeAllConnections();
  await new Promise<void>((r) => elsewhere.close(() => r()));
});

let seq = 0;
const key = (p: string) => `${p}${Date.now().toString(36)}${++seq}`;

async function invitePhone(owner: TestUser, slug: string, phone: string) {
  expect((await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'phone', identifier: phone }, { token: owner.token })).status).toBe(201);
}
async function inviteTelegram(owner: TestUser, slug: string, username: string) {
  expect((await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'telegram', identifier: `@${username}` }, { token: owner.token })).status).toBe(201);
}
const submissionsOf = (slug: string) =>
  t.db.query<any>(`SELECT s.id, s.text_content, s.source, s.status FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1 ORDER BY s.created_at, s.id`, [slug]);
const mediaOf = (submissionId: string) =>
  t.db.query<any>(
    `SELECT m.kind, m.mime_type, m.size_bytes::int AS size, m.processing_status, m.uploaded_by
     FROM media m LEFT JOIN inbound_media i ON i.media_id = m.id WHERE m.submission_id = $1 ORDER BY i.position, m.created_at, m.id`,
    [submissionId],
  );
const filesOf = (submissionId: string) => t.db.query<any>(`SELECT position, status, reason, reply_to FROM inbound_media WHERE submission_id = $1 ORDER BY position`, [submissionId]);
const settled = (rows: any[]) => rows.length > 0 && rows.every((r) => r.status !== 'pending');
const processed = (n: number) => (rows: any[]) => rows.length === n && rows.every((r) => r.processing_status === 'complete');

describe('MMS (Twilio)', () => {
  it('two photos become the memory’s media, fetched with the account’s credentials', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    await invitePhone(owner, slug, phone);
    const [jpeg, png] = [await readFixture('jpeg'), await readFixture('png')];
    const [a, b] = [key('ME'), key('ME')];
    provider.files.set(a, { body: jpeg, contentType: 'image/jpeg' });
    provider.files.set(b, { body: png, contentType: 'image/png' });
    const params = smsParams(phone, 'Both of us at the fair, 1962');
    const media = (k: string) => `${provider.url}/2010-04-01/Accounts/${TWILIO.sid}/Messages/${params.MessageSid}/Media/${k}`;
    Object.assign(params, { NumMedia: '2', MediaUrl0: media(a), MediaContentType0: 'image/jpeg', MediaUrl1: media(b), MediaContentType1: 'image/png' });

    const res = await postSms(t, params);
    expect(res.statusCode).toBe(200);
    const [memory] = await submissionsOf(slug);
    expect(memory).toMatchObject({ text_content: 'Both of us at the fair, 1962', source: 'sms', status: 'pending' });

    const rows = await eventually(() => mediaOf(memory.id), processed(2), 60_000);
    expect(rows.map((r) => [r.kind, r.mime_type, r.size])).toEqual([
      ['image', 'image/jpeg', jpeg.length],
      ['image', 'image/png', png.length],
    ]);
    const [user] = await t.db.query<any>(`SELECT id FROM users WHERE phone_number = $1`, [phone]);
    expect(rows.every((r) => r.uploaded_by === user.id)).toBe(true);
    expect(await filesOf(memory.id)).toEqual([
      { position: 0, status: 'attached', reason: null, reply_to: null },
      { position: 1, status: 'attached', reason: null, reply_to: null },
    ]);
    const gets = provider.received.filter((r) => r.method === 'GET' && r.path.includes(params.MessageSid));
    expect(gets.length).toBe(2);
    for (const g of gets) expect(g.headers.authorization).toBe(`Basic ${Buffer.from(`${TWILIO.sid}:${TWILIO.authToken}`).toString('base64')}`);
    // The memory was announced (submission.created) before its files came: each one attached is a submission.updated.
    const updates = (await t.get('/api/v1/events/', { token: owner.token, query: { type: 'submission.updated', book_slug: slug } })).body.items as any[];
    expect(updates).toHaveLength(2);
    expect(updates.map((e) => e.data.object.media.length).sort()).toEqual([1, 2]);
    expect(updates.every((e) => e.data.object.id === memory.id)).toBe(true);
  }, 90_000);

  it('a media URL on another host is never requested; the memory keeps its words and the sender is told', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    await invitePhone(owner, slug, phone);
    const params = smsParams(phone, 'A photo from elsewhere');
    const planted = `${elsewhereUrl}/2010-04-01/Accounts/${TWILIO.sid}/Messages/${params.MessageSid}/Media/ME1`;
    Object.assign(params, { NumMedia: '1', MediaUrl0: planted, MediaContentType0: 'image/jpeg' });
    expect((await postSms(t, params)).statusCode).toBe(200);
    const [memory] = await submissionsOf(slug);
    const [file] = await eventually(() => filesOf(memory.id), settled, 30_000);
    expect(file).toMatchObject({ status: 'refused', reply_to: null });
    expect(file.reason).toMatch(/not on the provider's host/);
    expect(elsewhereHits).toEqual([]);
    expect(await mediaOf(memory.id)).toEqual([]);
    expect(memory.text_content).toBe('A photo from elsewhere');
    const [told] = await provider.waitFor(1, (r) => r.path.endsWith('/Messages.json') && r.form.To === phone && /could not be added/.test(r.form.Body));
    expect(told.form.Body).toContain('Your message itself was kept');
  }, 60_000);
});

describe('MMS (Twilio), redirects', () => {
  it('a redirect to another host is not followed: the sender is told, nothing is fetched there', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    await invitePhone(owner, slug, phone);
    const k = key('ME');
    provider.files.set(k, { body: Buffer.alloc(0), contentType: 'image/jpeg', redirectTo: `${elsewhereUrl}/media/${k}` });
    const params = smsParams(phone, 'Redirected');
    Object.assign(params, { NumMedia: '1', MediaUrl0: `${provider.url}/2010-04-01/Accounts/${TWILIO.sid}/Messages/${params.MessageSid}/Media/${k}`, MediaContentType0: 'image/jpeg' });
    expect((await postSms(t, params)).statusCode).toBe(200);
    const [memory] = await submissionsOf(slug);
    const [file] = await eventually(() => filesOf(memory.id), settled, 30_000);
    expect(file.status).toBe('refused');
    expect(elsewhereHits).toEqual([]);
    expect(provider.received.filter((r) => r.path.endsWith(`/Media/${k}`))).toHaveLength(1);
  }, 60_000);

  it('a redirect within the provider’s host is followed', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const phone = newPhone();
    await invitePhone(owner, slug, phone);
    const [k, real] = [key('ME'), key('ME')];
    const params = smsParams(phone, 'Redirected at home');
    const at = (m: string) => `${provider.url}/2010-04-01/Accounts/${TWILIO.sid}/Messages/${params.MessageSid}/Media/${m}`;
    provider.files.set(real, { body: await readFixture('jpeg'), contentType: 'image/jpeg' });
    provider.files.set(k, { body: Buffer.alloc(0), contentType: 'image/jpeg', redirectTo: at(real) });
    Object.assign(params, { NumMedia: '1', MediaUrl0: at(k), MediaContentType0: 'image/jpeg' });
    expect((await postSms(t, params)).statusCode).toBe(200);
    const [memory] = await submissionsOf(slug);
    expect(await eventually(() => mediaOf(memory.id), processed(1), 60_000)).toHaveLength(1);
  }, 60_000);
});

describe('Telegram', () => {
  let chat = 810_000_000 + Math.floor(Math.random() * 1_000_000);
  async function member() {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const username = `tg_${Math.random().toString(36).slice(2, 10)}`;
    await inviteTelegram(owner, slug, username);
    const chatId = ++chat;
    // The first message accepts the invitation.
    expect((await postTelegram(t, telegramUpdate({ chatId, username, text: 'hello' }))).statusCode).toBe(200);
    return { slug, username, chatId };
  }
  const withMessage = (u: ReturnType<typeof telegramUpdate>, extra: Record<string, unknown>) => {
    const { text: _text, ...message } = u.message;
    return { ...u, message: { ...message, ...extra } };
  };

  it('a voice note and a photo (at its largest size, with its caption) become media, fetched through getFile', async () => {
    const { slug, username, chatId } = await member();
    const [mp3, jpeg] = [await readFixture('mp3'), await readFixture('jpeg')];
    const [voice, big, small] = [key('voice'), key('photo'), key('thumb')];
    provider.files.set(voice, { body: mp3, contentType: 'application/octet-stream' });
    provider.files.set(big, { body: jpeg, contentType: 'image/jpeg' });
    provider.files.set(small, { body: Buffer.from('a thumbnail that must not be fetched'), contentType: 'image/jpeg' });

    const v = withMessage(telegramUpdate({ chatId, username, text: '' }), { voice: { file_id: voice, file_unique_id: 'u1', duration: 2, mime_type: 'audio/ogg', file_size: mp3.length } });
    expect((await postTelegram(t, v)).statusCode).toBe(200);
    const p = withMessage(telegramUpdate({ chatId, username, text: '' }), {
      caption: 'The porch, summer 1971',
      photo: [
        { file_id: small, file_unique_id: 's', width: 90, height: 67, file_size: 900 },
        { file_id: big, file_unique_id: 'b', width: 640, height: 480, file_size: jpeg.length },
      ],
    });
    expect((await postTelegram(t, p)).statusCode).toBe(200);

    const memories = (await submissionsOf(slug)).filter((s) => s.text_content !== 'hello');
    expect(memories.map((m) => [m.text_content, m.source, m.status])).toEqual([
      ['Voice note', 'telegram', 'pending'],
      ['The porch, summer 1971', 'telegram', 'pending'],
    ]);
    expect((await eventually(() => mediaOf(memories[0].id), processed(1), 60_000)).map((r) => [r.kind, r.mime_type, r.size])).toEqual([['audio', 'audio/mpeg', mp3.length]]);
    expect((await eventually(() => mediaOf(memories[1].id), processed(1), 60_000)).map((r) => [r.kind, r.mime_type, r.size])).toEqual([['image', 'image/jpeg', jpeg.length]]);
    expect(provider.received.some((r) => r.path.includes(small))).toBe(false);
    expect(provider.received.filter((r) => r.path === `/bot${TELEGRAM.token}/getFile?file_id=${voice}`)).toHaveLength(1);
  }, 90_000);

  it('a video on a plan without video is refused: the memory keeps its caption and the bot says why', async () => {
    const { slug, username, chatId } = await member();
    const clip = key('video');
    provider.files.set(clip, { body: await readFixture('mp4'), contentType: 'video/mp4' });
    const u = withMessage(telegramUpdate({ chatId, username, text: '' }), { caption: 'Dancing in the kitchen', video: { file_id: clip, file_unique_id: 'v', width: 320, height: 240, duration: 2, mime_type: 'video/mp4' } });
    expect((await postTelegram(t, u)).statusCode).toBe(200);
    const memory = (await submissionsOf(slug)).find((s) => s.text_content === 'Dancing in the kitchen')!;
    const [file] = await eventually(() => filesOf(memory.id), settled, 30_000);
    expect(file.status).toBe('refused');
    expect(await mediaOf(memory.id)).toEqual([]);
    const [told] = await provider.waitFor(1, (r) => r.path.endsWith('/sendMessage') && r.json?.chat_id === String(chatId) && /could not be added/.test(r.json?.text));
    expect(told.json.text).toMatch(/video/);
  }, 60_000);

  it('an image sent as a document is a photo; a PDF document is not fetched', async () => {
    const { slug, username, chatId } = await member();
    const doc = key('doc');
    provider.files.set(doc, { body: await readFixture('png'), contentType: 'image/png' });
    const u = withMessage(telegramUpdate({ chatId, username, text: '' }), { caption: 'Scanned', document: { file_id: doc, file_unique_id: 'd', file_name: 'scan.png', mime_type: 'image/png' } });
    expect((await postTelegram(t, u)).statusCode).toBe(200);
    const pdf = withMessage(telegramUpdate({ chatId, username, text: '' }), { caption: 'A letter', document: { file_id: key('pdf'), file_unique_id: 'p', file_name: 'letter.pdf', mime_type: 'application/pdf' } });
    expect((await postTelegram(t, pdf)).statusCode).toBe(200);
    const memories = await submissionsOf(slug);
    const scanned = memories.find((s) => s.text_content === 'Scanned')!;
    expect((await eventually(() => mediaOf(scanned.id), processed(1), 60_000))[0]).toMatchObject({ kind: 'image', mime_type: 'image/png' });
    const letter = memories.find((s) => s.text_content === 'A letter')!;
    expect(await filesOf(letter.id)).toEqual([]);
  }, 90_000);
});

describe('Telegram audio and video notes', () => {
  it('an audio file and a round video note become media (the video note on a plan with video)', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const username = `tg_${Math.random().toString(36).slice(2, 10)}`;
    await inviteTelegram(owner, slug, username);
    const chatId = 830_000_000 + Math.floor(Math.random() * 1_000_000);
    expect((await postTelegram(t, telegramUpdate({ chatId, username, text: 'hello' }))).statusCode).toBe(200);
    const [song, note] = [key('audio'), key('note')];
    provider.files.set(song, { body: await readFixture('mp3'), contentType: 'audio/mpeg' });
    provider.files.set(note, { body: await readFixture('mp4'), contentType: 'video/mp4' });
    const base = (extra: Record<string, unknown>) => {
      const { text: _text, ...message } = telegramUpdate({ chatId, username, text: '' }).message;
      return { update_id: 1 + Math.floor(Math.random() * 1e9), message: { ...message, ...extra } };
    };
    expect((await postTelegram(t, base({ caption: 'Her song', audio: { file_id: song, file_unique_id: 'a', duration: 2, mime_type: 'audio/mpeg', file_name: 'song.mp3' } }))).statusCode).toBe(200);
    expect((await postTelegram(t, base({ video_note: { file_id: note, file_unique_id: 'n', length: 240, duration: 2 } }))).statusCode).toBe(200);
    const memories = (await submissionsOf(slug)).filter((m) => m.text_content !== 'hello');
    expect(memories.map((m) => m.text_content)).toEqual(['Her song', 'Video']);
    expect((await eventually(() => mediaOf(memories[0].id), processed(1), 60_000))[0]).toMatchObject({ kind: 'audio', mime_type: 'audio/mpeg' });
    expect((await eventually(() => mediaOf(memories[1].id), processed(1), 90_000))[0]).toMatchObject({ kind: 'video', mime_type: 'video/mp4' });
  }, 120_000);
});

describe('nothing is fetched inside the webhook’s request', () => {
  it('with no worker running, the MMS is answered and its files wait on the queue, untouched', async () => {
    const api = await buildTestApp({ env: { ...messagingEnv(provider.url), ...whatsappEnv(provider.url) } });
    try {
      const owner = await newUser(api);
      const slug = (await newBook(api, owner, { plan: 'plus' })).slug;
      const phone = newPhone();
      expect((await api.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'phone', identifier: phone }, { token: owner.token })).status).toBe(201);
      const params = smsParams(phone, 'Queued, not fetched');
      const k = key('ME');
      provider.files.set(k, { body: await readFixture('jpeg'), contentType: 'image/jpeg' });
      Object.assign(params, { NumMedia: '1', MediaUrl0: `${provider.url}/2010-04-01/Accounts/${TWILIO.sid}/Messages/${params.MessageSid}/Media/${k}`, MediaContentType0: 'image/jpeg' });
      expect((await postSms(api, params)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
      expect(provider.received.filter((r) => r.path.includes(k))).toEqual([]);
      const files = await api.db.query<any>(`SELECT status, ref FROM inbound_media WHERE external_id = $1`, [params.MessageSid]);
      expect(files).toEqual([{ status: 'pending', ref: params.MediaUrl0 }]);
    } finally {
      await api.close();
    }
  }, 60_000);
});

describe('WhatsApp', () => {
  async function member() {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const phone = newPhone();
    await invitePhone(owner, slug, phone);
    return { slug, phone };
  }

  it('a video becomes the memory’s media, through the media endpoint with the bearer token', async () => {
    const { slug, phone } = await member();
    const mp4 = await readFixture('mp4');
    const id = key('9');
    provider.files.set(id, { body: mp4, contentType: 'video/mp4' });
    const res = await postWhatsApp(t, whatsappPayload(phone, { type: 'video', video: { id, mime_type: 'video/mp4', sha256: 'x', caption: 'First steps' } }));
    expect(res.statusCode).toBe(200);
    const [memory] = await submissionsOf(slug);
    expect(memory).toMatchObject({ text_content: 'First steps', source: 'whatsapp', status: 'pending' });
    const rows = await eventually(() => mediaOf(memory.id), processed(1), 90_000);
    expect(rows.map((r) => [r.kind, r.mime_type, r.size])).toEqual([['video', 'video/mp4', mp4.length]]);
    const gets = provider.received.filter((r) => r.method === 'GET' && r.path.includes(id));
    expect(gets.map((g) => g.path)).toEqual([`/${id}`, `/whatsapp-media/${id}`]);
    for (const g of gets) expect(g.headers.authorization).toBe(`Bearer ${WHATSAPP.accessToken}`);
  }, 120_000);

  it('a voice note whose media URL points at another host is never fetched, and the sender is told', async () => {
    const { slug, phone } = await member();
    const id = key('7');
    provider.files.set(id, { body: await readFixture('mp3'), contentType: 'audio/ogg', whatsappUrl: `${elsewhereUrl}/media/${id}` });
    expect((await postWhatsApp(t, whatsappPayload(phone, { type: 'audio', audio: { id, mime_type: 'audio/ogg; codecs=opus', voice: true } }))).statusCode).toBe(200);
    const [memory] = await submissionsOf(slug);
    expect(memory.text_content).toBe('Voice note');
    const [file] = await eventually(() => filesOf(memory.id), settled, 30_000);
    expect(file.status).toBe('refused');
    expect(elsewhereHits).toEqual([]);
    const [told] = await provider.waitFor(1, (r) => r.path === `/${WHATSAPP.numberId}/messages` && r.json?.to === phone.slice(1) && r.json?.type === 'text');
    expect(told.json.text.body).toMatch(/could not be added/);
  }, 60_000);
});
