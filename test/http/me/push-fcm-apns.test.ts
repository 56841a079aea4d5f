/**
 * Push to phones: FCM HTTP v1 (an OAuth token from the service account
 * file's token_uri, then messages:send) and APNs token auth over HTTP/2
 * (an ES256 provider token), each against a local server speaking its
 * provider's shape; "gone" answers (FCM UNREGISTERED, APNs 410
 * Unregistered) remove the device.
 */
import { generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { addMember, newBook, newUser, type TestUser } from '../../helpers/factories.js';

const dir = mkdtempSync(path.join(tmpdir(), 'memorybook-push-'));
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

describe('push to phones: FCM HTTP v1 and APNs', () => {
  let t: TestApp;
  let owner: TestUser;
  let fcm: Server;
  let apns: http2.Http2Server;
  const fcmSends: { auth: string | undefined; path: string; body: any }[] = [];
  const tokenRequests: URLSearchParams[] = [];
  const apnsSends: { headers: http2.IncomingHttpHeaders; body: any }[] = [];
  const fcmAnswers: { status: number; body: unknown }[] = [];
  const apnsAnswers: { status: number; body: unknown }[] = [];

  beforeAll(async () => {
    fcm = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/token') {
          tokenRequests.push(new URLSearchParams(raw));
          return res.end(JSON.stringify({ access_token: 'ya29.local-access-token', expires_in: 3599, token_type: 'Bearer' }));
        }
        fcmSends.push({ auth: req.headers.authorization, path: req.url ?? '', body: JSON.parse(raw) });
        const a = fcmAnswers.shift();
        res.statusCode = a?.status ?? 200;
        res.end(JSON.stringify(a?.body ?? { name: 'projects/memorybook-test/messages/0:1' }));
      });
    });
    await new Promise<void>((r) => fcm.listen(0, '127.0.0.1', r));
    const fcmUrl = `http://127.0.0.1:${(fcm.address() as AddressInfo).port}`;
    apns = http2.createServer();
    apns.on('stream', (stream, headers) => {
      let raw = '';
      stream.on('data', (c) => (raw += c));
      stream.on('end', () => {
        apnsSends.push({ headers, body: JSON.parse(raw) });
        const a = apnsAnswers.shift();
        stream.respond({ ':status': a?.status ?? 200, 'apns-id': randomBytes(16).toString('hex') });
        stream.end(a ? JSON.stringify(a.body) : undefined);
      });
    });
    await new Promise<void>((r) => apns.listen(0, '127.0.0.1', r));
    const apnsUrl = `http://127.0.0.1:${(apns.address() as AddressInfo).port}`;

    const accountFile = path.join(dir, 'service-account.json');
    writeFileSync(accountFile, JSON.stringify({ type: 'service_account', project_id: 'memorybook-test', client_email: 'push@memorybook-test.iam.gserviceaccount.com', private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }), token_uri: `${fcmUrl}/token` }));
    const keyFile = path.join(dir, 'AuthKey_ABC123DEFG.p8');
    writeFileSync(keyFile, ec.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    t = await buildTestApp({
      worker: true,
      env: {
        FCM_PROJECT_ID: 'memorybook-test',
        FCM_SERVICE_ACCOUNT_FILE: accountFile,
        FCM_API_BASE: fcmUrl,
        APNS_KEY_FILE: keyFile,
        APNS_KEY_ID: 'ABC123DEFG',
        APNS_TEAM_ID: 'TEAM123456',
        APNS_TOPIC: 'org.example.memorybook',
        APNS_ENVIRONMENT: 'sandbox',
        APNS_API_BASE: apnsUrl,
      },
    });
    owner = await newUser(t);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    fcm?.close();
    apns?.close();
  });

  async function subscribed() {
    const book = await newBook(t, owner, { plan: 'plus' });
    const member = await newUser(t);
    await addMember(t, book.slug, member, 'admin');
    const android = `fcm-${randomBytes(60).toString('base64url')}`;
    const ios = randomBytes(32).toString('hex');
    expect((await t.post('/api/v1/me/devices/', { platform: 'android', token: android }, { token: member.token })).status).toBe(201);
    expect((await t.post('/api/v1/me/devices/', { platform: 'ios', token: ios }, { token: member.token })).status).toBe(201);
    await t.services.subscriptions.createSubscription({ slug: book.slug, email: member.email, kind: 'new_submission', channel: 'push' });
    return { book, member, android, ios };
  }

  it('sends a new memory to an Android phone through FCM and to an iPhone through APNs', async () => {
    const { book, android, ios } = await subscribed();
    await t.post(`/api/v1/books/${book.slug}/submissions/`, { text_content: 'We miss you, Grandma.', contributor_name: 'Sam' }, { token: owner.token });
    const [sent] = await eventually(async () => fcmSends.filter((s) => s.body.message.token === android), (l) => l.length > 0, 20_000);
    expect(sent.path).toBe('/v1/projects/memorybook-test/messages:send');
    expect(sent.auth).toBe('Bearer ya29.local-access-token');
    expect(sent.body.message).toMatchObject({ notification: { title: book.body.title }, data: { book_slug: book.slug, kind: 'new_submission' } });
    expect(sent.body.message.notification.body).toContain('We miss you, Grandma.');
    // The JWT bearer grant, signed with the service account's key, for the token endpoint.
    const grant = tokenRequests.at(-1)!;
    expect(grant.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [h, p, s] = grant.get('assertion')!.split('.');
    expect(verify('RSA-SHA256', Buffer.from(`${h}.${p}`), rsa.publicKey, Buffer.from(s, 'base64url'))).toBe(true);
    expect(JSON.parse(Buffer.from(p, 'base64url').toString())).toMatchObject({ iss: 'push@memorybook-test.iam.gserviceaccount.com', scope: 'https://www.googleapis.com/auth/firebase.messaging' });

    const [push] = await eventually(async () => apnsSends.filter((a) => a.headers[':path'] === `/3/device/${ios}`), (l) => l.length > 0, 20_000);
    expect(push.headers).toMatchObject({ ':method': 'POST', 'apns-topic': 'org.example.memorybook', 'apns-push-type': 'alert' });
    expect(push.body.aps.alert).toMatchObject({ title: book.body.title });
    expect(push.body.aps.alert.body).toContain('We miss you, Grandma.');
    const [jh, jp, js] = String(push.headers.authorization).replace(/^bearer /, '').split('.');
    expect(JSON.parse(Buffer.from(jh, 'base64url').toString())).toEqual({ alg: 'ES256', kid: 'ABC123DEFG' });
    expect(JSON.parse(Buffer.from(jp, 'base64url').toString())).toMatchObject({ iss: 'TEAM123456' });
    expect(verify('sha256', Buffer.from(`${jh}.${jp}`), { key: ec.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(js, 'base64url'))).toBe(true);

    const channels = await t.get(`/api/v1/books/${book.slug}/channels/`, { token: owner.token });
    expect(channels.body.items.find((c: any) => c.channel === 'push').providers).toEqual(['fcm', 'apns']);
  });

  it('removes the devices FCM (UNREGISTERED) and APNs (410 Unregistered) call gone', async () => {
    const { book, member } = await subscribed();
    fcmAnswers.push({ status: 404, body: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND', details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }] } } });
    apnsAnswers.push({ status: 410, body: { reason: 'Unregistered', timestamp: Date.now() } });
    await t.post(`/api/v1/books/${book.slug}/submissions/`, { text_content: 'For phones that are gone.' }, { token: owner.token });
    await eventually(async () => (await t.get('/api/v1/me/devices/', { token: member.token })).body.items.length === 0, Boolean, 20_000);
  });
});
