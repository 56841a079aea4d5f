/**
 * /webhook_endpoints/: CRUD with ETag/If-Match and Idempotency-Key, the
 * secret shown once, the 16-endpoint cap, owner scoping (404), and the SSRF
 * guard on create, on update and again at delivery (DNS rebinding).
 */
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { startReceiver } from './receiver.js';
import { ownerWithEndpoint, webhookApp } from './webhook-setup.js';

describe('webhook endpoints', () => {
  it('create answers 201 with the secret once; reads never show it; PATCH under If-Match; DELETE', async () => {
    const t = await webhookApp();
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const created = await t.post(
      '/api/v1/webhook_endpoints/',
      { url: 'http://127.0.0.1:9/hook', description: 'mine', event_types: ['submission.created'], book_slugs: [slug] },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/v1/webhook_endpoints/${created.body.id}/`);
    expect(created.body).toMatchObject({ url: 'http://127.0.0.1:9/hook', description: 'mine', event_types: ['submission.created'], book_slugs: [slug], status: 'enabled', disabled_reason: null });
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
    const id = created.body.id;

    const got = await t.get(`/api/v1/webhook_endpoints/${id}/`, { token: owner.token });
    expect(got.body.secret).toBeUndefined();
    expect(got.headers.etag).toBe(got.body.etag);
    const list = await t.get('/api/v1/webhook_endpoints/', { token: owner.token });
    expect(list.body.items.map((e: any) => e.id)).toEqual([id]);
    expect(list.body.items[0].secret).toBeUndefined();

    // Stored sealed: the plaintext secret is nowhere in the row.
    const [row] = await t.db.query<Record<string, unknown>>(`SELECT * FROM webhook_endpoints WHERE id = $1`, [id]);
    expect(JSON.stringify(row)).not.toContain(created.body.secret.slice(6));

    const stale = await t.patch(`/api/v1/webhook_endpoints/${id}/`, { description: 'x' }, { token: owner.token, headers: { 'if-match': '"2000-01-01T00:00:00.000000Z"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.details.current_etag).toBe(got.body.etag);
    const patched = await t.patch(`/api/v1/webhook_endpoints/${id}/`, { description: 'renamed', event_types: null, status: 'disabled' }, { token: owner.token, headers: { 'if-match': got.body.etag } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'renamed', event_types: null, status: 'disabled', disabled_reason: 'manual' });
    expect(patched.body.etag).not.toBe(got.body.etag);

    // The same Idempotency-Key replays the answer and makes nothing new; the secret is never stored in the clear,
    // so the replay carries null where the first answer had it.
    const key = crypto.randomUUID();
    const a = await t.post('/api/v1/webhook_endpoints/', { url: 'http://127.0.0.1:9/b' }, { token: owner.token, idempotencyKey: key });
    const b = await t.post('/api/v1/webhook_endpoints/', { url: 'http://127.0.0.1:9/b' }, { token: owner.token, idempotencyKey: key });
    expect(b.status).toBe(201);
    expect(a.body.secret).toMatch(/^whsec_/);
    expect(b.body).toEqual({ ...a.body, secret: null });
    expect((await t.get('/api/v1/webhook_endpoints/', { token: owner.token })).body.items).toHaveLength(2);
    const rotateKey = crypto.randomUUID();
    const rotated = await t.post(`/api/v1/webhook_endpoints/${a.body.id}/rotate_secret/`, undefined, { token: owner.token, idempotencyKey: rotateKey });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const rotatedAgain = await t.post(`/api/v1/webhook_endpoints/${a.body.id}/rotate_secret/`, undefined, { token: owner.token, idempotencyKey: rotateKey });
    expect(rotatedAgain.body).toEqual({ ...rotated.body, secret: null });
    const stored = await t.db.query<{ body: string }>(`SELECT response_body::text AS body FROM idempotency_keys`);
    expect(stored.some((r) => r.body.includes('whsec_'))).toBe(false);

    expect((await t.delete(`/api/v1/webhook_endpoints/${id}/`, { token: owner.token })).status).toBe(204);
    expect((await t.get(`/api/v1/webhook_endpoints/${id}/`, { token: owner.token })).status).toBe(404);
  });

  it("another user's endpoint is 404 on every route, like one that does not exist", async () => {
    const t = await webhookApp();
    const { endpoint } = await ownerWithEndpoint(t, 'http://127.0.0.1:9/hook');
    const stranger = await newUser(t);
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', 'rotate_secret/'],
      ['POST', 'test/'],
      ['GET', 'deliveries/'],
    ] as const) {
      const res = await t.request(method, `/api/v1/webhook_endpoints/${endpoint.id}/${path}`, { token: stranger.token, body: method === 'PATCH' ? { description: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await t.get('/api/v1/webhook_endpoints/not-an-id/', { token: stranger.token })).status).toBe(404);
    expect((await t.get('/api/v1/webhook_endpoints/', { token: stranger.token })).body.items).toEqual([]);
  });

  it('at most 16 endpoints a user', async () => {
    const t = await webhookApp();
    const owner = await newUser(t);
    for (let i = 0; i < 16; i++) expect((await t.post('/api/v1/webhook_endpoints/', { url: `http://127.0.0.1:9/${i}` }, { token: owner.token })).status).toBe(201);
    const over = await t.post('/api/v1/webhook_endpoints/', { url: 'http://127.0.0.1:9/17' }, { token: owner.token });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: 'validation_failed', details: { reason: 'too_many_endpoints', limit: 16 } });
  });

  it('bad bodies: unknown event type or field 422; a book the user does not administer 400', async () => {
    const t = await webhookApp();
    const owner = await newUser(t);
    const other = await newUser(t);
    const { slug } = await newBook(t, other);
    expect((await t.post('/api/v1/webhook_endpoints/', { url: 'http://127.0.0.1:9/', event_types: ['nope'] }, { token: owner.token })).status).toBe(422);
    expect((await t.post('/api/v1/webhook_endpoints/', { url: 'http://127.0.0.1:9/', secret: 'x' }, { token: owner.token })).status).toBe(422);
    const res = await t.post('/api/v1/webhook_endpoints/', { url: 'http://127.0.0.1:9/', book_slugs: [slug] }, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'book_slugs', reason: 'unknown_book' });
  });
});

describe('the SSRF guard', () => {
  const refusals: [string, string][] = [
    ['https://127.0.0.1/hook', 'private_address'],
    ['https://10.1.2.3/hook', 'private_address'],
    ['https://169.254.169.254/latest/meta-data/', 'private_address'],
    ['https://[::1]/hook', 'private_address'],
    ['https://[::ffff:127.0.0.1]/hook', 'private_address'],
    ['https://192.168.0.10/hook', 'private_address'],
    ['http://93.184.215.14/hook', 'scheme_not_allowed'],
    ['ftp://example.com/hook', 'scheme_not_allowed'],
    ['https://user:pw@93.184.215.14/hook', 'credentials_not_allowed'],
    ['not a url', 'invalid_url'],
    ['https://internal.example/hook', 'private_address'],
    ['https://nowhere.invalid/hook', 'unresolvable'],
  ];

  it('refuses non-public addresses, plain http and odd URLs on create and update: 400 validation_failed with details.reason', async () => {
    const resolver = async (host: string) => {
      if (host === 'internal.example') return [{ address: '10.0.0.7', family: 4 }];
      if (host === 'public.example') return [{ address: '93.184.215.14', family: 4 }];
      throw new Error('ENOTFOUND');
    };
    const t = await buildTestApp({ webhooks: { resolver } });
    const owner = await newUser(t);
    for (const [url, reason] of refusals) {
      const res = await t.post('/api/v1/webhook_endpoints/', { url }, { token: owner.token });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatchObject({ code: 'validation_failed', details: { field: 'url', reason } });
    }
    const ok = await t.post('/api/v1/webhook_endpoints/', { url: 'https://public.example/hook' }, { token: owner.token });
    expect(ok.status).toBe(201);
    const moved = await t.patch(`/api/v1/webhook_endpoints/${ok.body.id}/`, { url: 'https://169.254.169.254/' }, { token: owner.token });
    expect(moved.status).toBe(400);
    expect(moved.body.details.reason).toBe('private_address');
    expect((await t.get(`/api/v1/webhook_endpoints/${ok.body.id}/`, { token: owner.token })).body.url).toBe('https://public.example/hook');
  });

  it('refuses IPv4-compatible, IPv4-translated, NAT64-to-private and other special-purpose IPv6 addresses, never telling the address a name resolves to', async () => {
    const answers: Record<string, string> = {
      'compat.example': '::7f00:1', // ::127.0.0.1, IPv4-compatible (::/96)
      'translated.example': '::ffff:0:a00:1', // ::ffff:0:10.0.0.1, IPv4-translated (::ffff:0:0:0/96)
      'nat64.example': '64:ff9b::a9fe:a9fe', // 64:ff9b::169.254.169.254
      'nat64-local.example': '64:ff9b:1::808:808', // local-use NAT64 prefix
      'mapped-hex.example': '::ffff:a00:7', // ::ffff:10.0.0.7 in hex
      'dummy.example': '100:0:0:1::1', // the dummy IPv6 prefix (RFC 9780)
      'segment.example': '5f00::1', // SRv6 SIDs
      'amt.example': '192.52.193.9',
      'as112.example': '192.175.48.1',
      'public-nat64.example': '64:ff9b::5db8:d70e', // 64:ff9b::93.184.215.14
      'public6.example': '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    };
    const resolver = async (host: string) => {
      const a = answers[host];
      if (!a) throw new Error('ENOTFOUND');
      return [{ address: a, family: a.includes(':') ? 6 : 4 }];
    };
    const t = await buildTestApp({ webhooks: { resolver } });
    const owner = await newUser(t);
    const refused = [
      ...['compat', 'translated', 'nat64', 'nat64-local', 'mapped-hex', 'dummy', 'segment', 'amt', 'as112'].map((h) => `https://${h}.example/hook`),
      'https://[::7f00:1]/hook',
      'https://[::a9fe:a9fe]/hook',
      'https://[::ffff:0:7f00:1]/hook',
      'https://[64:ff9b::7f00:1]/hook',
      'https://[64:ff9b::c0a8:1]/hook',
    ];
    for (const url of refused) {
      const res = await t.post('/api/v1/webhook_endpoints/', { url }, { token: owner.token });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toMatchObject({ code: 'validation_failed', details: { field: 'url', reason: 'private_address' } });
      // What a name resolves to stays inside: neither the address nor any of its spellings is told.
      // (The message and details only: the request id is random hex that may spell anything.)
      const told = JSON.stringify({ message: res.body.message, details: res.body.details });
      expect(told, url).not.toMatch(/7f00|a9fe|a00|808|192\.52|192\.175|169\.254|10\.0\.0|127\.0\.0|5f00|100:0/);
    }
    // A NAT64 address that stands for a public IPv4 address, and a public IPv6 one, are public.
    for (const url of ['https://public-nat64.example/hook', 'https://public6.example/hook']) {
      expect((await t.post('/api/v1/webhook_endpoints/', { url }, { token: owner.token })).status, url).toBe(201);
    }
  });

  it('a name public when set and private at delivery is refused at delivery (the checked address is the one connected to)', async () => {
    const receiver = await startReceiver();
    // Public at create time; then it answers the receiver's loopback address (which is not allowed here).
    let answer = '93.184.215.14';
    const resolver = async () => [{ address: answer, family: 4 }];
    const t = await buildTestApp({ webhooks: { resolver } });
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'plus' });
    const ep = await t.post('/api/v1/webhook_endpoints/', { url: `https://rebind.example:${receiver.port}/hook` }, { token: owner.token });
    expect(ep.status).toBe(201);
    answer = '127.0.0.1';
    await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'hello' }, { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    expect(receiver.received).toHaveLength(0);
    const log = await t.get(`/api/v1/webhook_endpoints/${ep.body.id}/deliveries/`, { token: owner.token });
    expect(log.body.items[0]).toMatchObject({ attempt: 1, status_code: null });
    expect(log.body.items[0].error).toBe("The URL's host resolves to a non-public address.");
  });

  it('WEBHOOK_ALLOW_PRIVATE lets listed ranges through (plain http only to them); * lets all', async () => {
    const t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/8, 127.0.0.1' } });
    const owner = await newUser(t);
    expect((await t.post('/api/v1/webhook_endpoints/', { url: 'http://10.9.9.9/hook' }, { token: owner.token })).status).toBe(201);
    expect((await t.post('/api/v1/webhook_endpoints/', { url: 'http://127.0.0.1:8080/hook' }, { token: owner.token })).status).toBe(201);
    expect((await t.post('/api/v1/webhook_endpoints/', { url: 'https://192.168.1.1/hook' }, { token: owner.token })).body.details?.reason).toBe('private_address');
    const all = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: '*' } });
    const u = await newUser(all);
    expect((await all.post('/api/v1/webhook_endpoints/', { url: 'http://[::1]:8080/hook' }, { token: u.token })).status).toBe(201);
  });
});
