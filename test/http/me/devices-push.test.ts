/**
 * Devices and push over HTTP: registration (never the token back, one
 * device per token, the VAPID key for browsers, the address guard on Web
 * Push endpoints), and a notification subscription on `channel: push`
 * delivered to a local push service, encrypted (RFC 8291, aes128gcm) and
 * VAPID-signed (RFC 8292), decrypted here as a browser would; a 410 removes
 * the device; nothing is pushed for a book the user left.
 */
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newUser, type TestUser } from '../../helpers/factories.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A push service (RFC 8030) on this machine: takes messages at /push/<id>, 201, or the next scripted status. */
async function startPushService() {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(statuses.shift() ?? 201, { location: `${req.url}/messages/${received.length}` });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answerNext: (status: number) => void statuses.push(status),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A browser's side of a subscription: its P-256 key pair and auth secret. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return { ecdh, auth, p256dh: ecdh.getPublicKey().toString('base64url'), authB64: auth.toString('base64url') };
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 §3.4 and RFC 8188: the user agent decrypts an aes128gcm message with its private key and auth secret. */
function decryptAes128gcm(body: Buffer, ua: ReturnType<typeof browserKeys>): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  expect(idlen).toBe(65);
  expect(ciphertext.length).toBeLessThanOrEqual(rs);
  const ecdhSecret = ua.ecdh.computeSecret(asPublic);
  const prkKey = hmac(ua.auth, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ua.ecdh.getPublicKey(), asPublic]);
  const ikm = hmac(prkKey, Buffer.concat([keyInfo, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  expect(padded[end]).toBe(2);
  return padded.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`; the JWT is ES256-signed by that key, for the endpoint's origin. */
function checkVapid(header: string | undefined, endpoint: string, publicKey: string, subject: string) {
  const m = /^vapid t=([^,]+),\s*k=(.+)$/.exec(header ?? '');
  expect(m, header).not.toBeNull();
  const [, jwt, k] = m!;
  expect(k).toBe(publicKey);
  const [h, p, s] = jwt.split('.');
  const raw = Buffer.from(k, 'base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') }, format: 'jwk' });
  expect(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))).toBe(true);
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  expect(claims).toMatchObject({ aud: new URL(endpoint).origin, sub: subject });
  expect(claims.exp * 1000).toBeGreaterThan(Date.now());
}

describe('devices and push', () => {
  let t: TestApp;
  let pushService: Awaited<ReturnType<typeof startPushService>>;
  let owner: TestUser;
  const vapid = webpush.generateVAPIDKeys();
  const SUBJECT = 'mailto:operator@example.test';

  beforeAll(async () => {
    pushService = await startPushService();
    t = await buildTestApp({
      worker: true,
      env: { WEB_PUSH_VAPID_PUBLIC_KEY: vapid.publicKey, WEB_PUSH_VAPID_PRIVATE_KEY: vapid.privateKey, WEB_PUSH_SUBJECT: SUBJECT, WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' },
    });
    owner = await newUser(t);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await pushService?.close();
  });

  const web = (endpoint: string, ua = browserKeys(), name?: string) => ({ platform: 'web', ...(name ? { name } : {}), subscription: { endpoint, expirationTime: null, keys: { p256dh: ua.p256dh, auth: ua.authB64 } } });

  it('registers devices without ever answering their token; the same token again is the same device; lists with the VAPID key; deletes', async () => {
    const u = await newUser(t);
    const iosToken = randomBytes(32).toString('hex');
    const ios = await t.post('/api/v1/me/devices/', { platform: 'ios', name: "Ada's iPhone", token: iosToken }, { token: u.token });
    expect(ios.status).toBe(201);
    expect(Object.keys(ios.body).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'platform']);
    expect(ios.body).toMatchObject({ platform: 'ios', name: "Ada's iPhone", last_used_at: null });
    expect(ios.text).not.toContain(iosToken);
    const again = await t.post('/api/v1/me/devices/', { platform: 'ios', token: iosToken }, { token: u.token });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(ios.body.id);

    const ua = browserKeys();
    const endpoint = `${pushService.url}/push/${randomBytes(8).toString('hex')}`;
    const browser = await t.post('/api/v1/me/devices/', web(endpoint, ua, 'Firefox'), { token: u.token });
    expect(browser.status).toBe(201);
    for (const secret of [endpoint, ua.p256dh, ua.authB64]) expect(browser.text).not.toContain(secret);
    const android = await t.post('/api/v1/me/devices/', { platform: 'android', token: `fcm:${randomBytes(40).toString('base64url')}` }, { token: u.token });
    expect(android.status).toBe(201);

    const list = await t.get('/api/v1/me/devices/', { token: u.token });
    expect(list.status).toBe(200);
    expect(list.body.web_push_public_key).toBe(vapid.publicKey);
    expect(list.body.items.map((d: any) => d.id)).toEqual([ios.body.id, browser.body.id, android.body.id]);
    for (const secret of [iosToken, endpoint, ua.p256dh]) expect(list.text).not.toContain(secret);
    // Someone else's list never shows them, and they cannot delete them.
    const other = await newUser(t);
    expect((await t.get('/api/v1/me/devices/', { token: other.token })).body.items).toEqual([]);
    expect((await t.delete(`/api/v1/me/devices/${ios.body.id}/`, { token: other.token })).status).toBe(404);

    expect((await t.delete(`/api/v1/me/devices/${ios.body.id}/`, { token: u.token })).status).toBe(204);
    expect((await t.delete(`/api/v1/me/devices/${ios.body.id}/`, { token: u.token })).status).toBe(404);
    expect((await t.get('/api/v1/me/devices/', { token: u.token })).body.items).toHaveLength(2);
  });

  it('refuses a Web Push endpoint the address guard refuses, and keys that are not a browser\'s', async () => {
    const u = await newUser(t);
    for (const endpoint of ['http://10.1.2.3/push/x', 'http://169.254.169.254/latest/', 'https://[::1]/push']) {
      const res = await t.post('/api/v1/me/devices/', web(endpoint), { token: u.token });
      expect(res.status, endpoint).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: { field: 'subscription.endpoint', reason: 'private_address' } });
    }
    const bad = await t.post('/api/v1/me/devices/', { platform: 'web', subscription: { endpoint: `${pushService.url}/push/y`, keys: { p256dh: 'short', auth: 'short' } } }, { token: u.token });
    expect(bad.status).toBe(400);
    expect(bad.body.details.field).toBe('subscription.keys.p256dh');
    expect((await t.get('/api/v1/me/devices/', { token: u.token })).body.items).toEqual([]);
  });

  it('pushes a new memory to the subscriber\'s browser, encrypted and VAPID-signed, with a short preview only', async () => {
    const book = await newBook(t, owner, { plan: 'plus' });
    const member = await newUser(t);
    await addMember(t, book.slug, member, 'admin');
    const ua = browserKeys();
    const endpoint = `${pushService.url}/push/${randomBytes(8).toString('hex')}`;
    const device = await t.post('/api/v1/me/devices/', web(endpoint, ua), { token: member.token });
    expect(device.status).toBe(201);
    const sub = await t.services.subscriptions.createSubscription({ slug: book.slug, email: member.email, kind: 'new_submission', channel: 'push' });
    expect(sub).toMatchObject({ channel: 'push', created: true });

    const long = `Grandma, remember the lake? ${'We swam every morning and you made apple cake. '.repeat(12)}THE END`;
    const memory = await t.post(`/api/v1/books/${book.slug}/submissions/`, { text_content: long, contributor_name: 'Sam' }, { token: owner.token });
    expect(memory.status).toBe(201);
    const [msg] = await eventually(async () => pushService.received.filter((r) => r.path === new URL(endpoint).pathname), (l) => l.length > 0, 20_000);
    expect(msg.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(msg.headers.ttl)).toBeGreaterThan(0);
    checkVapid(msg.headers.authorization, endpoint, vapid.publicKey, SUBJECT);
    const payload = JSON.parse(decryptAes128gcm(msg.body, ua));
    expect(payload.title).toBe(book.body.title);
    expect(payload.body).toContain('from Sam');
    expect(payload.body).toContain('Grandma, remember the lake?');
    expect(payload.body.length).toBeLessThanOrEqual(160);
    expect(payload.body).not.toContain('THE END');
    expect(payload.data).toEqual({ book_slug: book.slug, kind: 'new_submission' });
    await eventually(async () => (await t.get('/api/v1/me/devices/', { token: member.token })).body.items[0].last_used_at, Boolean);

    // The channel snapshot's push row says which providers are on.
    const channels = await t.get(`/api/v1/books/${book.slug}/channels/`, { token: owner.token });
    expect(channels.body.items.find((c: any) => c.channel === 'push')).toEqual({
      channel: 'push', enabled: true, plan_allowed: true, platform_configured: true, address: null, deep_link: null, providers: ['web_push'],
    });
  });

  it('removes a device its push service calls gone (410)', async () => {
    const book = await newBook(t, owner, { plan: 'plus' });
    const member = await newUser(t);
    await addMember(t, book.slug, member, 'admin');
    const endpoint = `${pushService.url}/push/${randomBytes(8).toString('hex')}`;
    expect((await t.post('/api/v1/me/devices/', web(endpoint), { token: member.token })).status).toBe(201);
    await t.services.subscriptions.createSubscription({ slug: book.slug, email: member.email, kind: 'new_submission', channel: 'push' });
    pushService.answerNext(410);
    await t.post(`/api/v1/books/${book.slug}/submissions/`, { text_content: 'A memory for a browser that unsubscribed.' }, { token: owner.token });
    await eventually(async () => pushService.received.some((r) => r.path === new URL(endpoint).pathname), Boolean, 20_000);
    await eventually(async () => (await t.get('/api/v1/me/devices/', { token: member.token })).body.items.length === 0, Boolean, 20_000);
  });

  it('pushes nothing for a book the user has left', async () => {
    const book = await newBook(t, owner, { plan: 'plus' });
    const member = await newUser(t);
    await addMember(t, book.slug, member, 'admin');
    const endpoint = `${pushService.url}/push/${randomBytes(8).toString('hex')}`;
    const device = await t.post('/api/v1/me/devices/', web(endpoint), { token: member.token });
    await t.services.subscriptions.createSubscription({ slug: book.slug, email: member.email, kind: 'new_submission', channel: 'push' });
    const [bookRow] = await t.db.query<{ id: string }>(`SELECT id FROM books WHERE slug = $1`, [book.slug]);
    expect((await t.delete(`/api/v1/books/${book.slug}/members/${member.user.id}/`, { token: owner.token })).status).toBe(204);
    await t.post(`/api/v1/books/${book.slug}/submissions/`, { text_content: 'After they left.' }, { token: owner.token });
    // A push already queued when they left is dropped at send time too.
    expect(await t.services.devices.send({ deviceId: device.body.id, bookId: bookRow.id, bookSlug: book.slug, kind: 'new_submission', title: 't', body: 'b' })).toBe('not a member any more');
    await new Promise((r) => setTimeout(r, 1500));
    expect(pushService.received.filter((r) => r.path === new URL(endpoint).pathname)).toEqual([]);
  });

  it('takes --channel push from the operator CLI path only for a user with a device', async () => {
    const book = await newBook(t, owner, { plan: 'plus' });
    const member = await newUser(t);
    await addMember(t, book.slug, member, 'admin');
    await expect(t.services.subscriptions.createSubscription({ slug: book.slug, email: member.email, kind: 'digest', channel: 'push' })).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
