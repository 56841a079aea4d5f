import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
let owner: TestUser;
let slug: string;
beforeAll(async () => {
  t = await buildTestApp();
  owner = await newUser(t);
  slug = (await newBook(t, owner, { plan: 'plus' })).slug;
});

const base = (s = slug) => `/api/v1/books/${s}/submissions/`;
const count = async () => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions`))[0].n;
const create = async (body: unknown = { text_content: 'a memory' }) => (await t.post(base(), body, { token: owner.token })).body;

describe('POST …/submissions/ errors', () => {
  it('422 for contributor_email and other unknown or read-only fields; nothing written', async () => {
    const before = await count();
    for (const field of ['contributor_email', 'status', 'source', 'id', 'contributor_user', 'is_pinned']) {
      const res = await t.post(base(), { text_content: 'x', [field]: 'v' }, { token: owner.token });
      expect(res.status, field).toBe(422);
      expect(res.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', field], type: 'extra_forbidden' }));
    }
    expect(await count()).toBe(before);
  });

  it('422 for a missing text_content, wrong types and lengths, one entry per field', async () => {
    const res = await t.post(base(), { contributor_name: 5, is_private: 'yes' }, { token: owner.token });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.text_content', 'body.contributor_name', 'body.is_private']));
    for (const body of [{ text_content: '' }, { text_content: 'x'.repeat(20_001) }, { text_content: 'x', contributor_name: 'n'.repeat(201) }]) {
      expect((await t.post(base(), body, { token: owner.token })).status).toBe(422);
    }
    // The limits themselves are accepted; 20,000 characters counted as characters, not bytes.
    expect((await t.post(base(), { text_content: '😀'.repeat(20_000) }, { token: owner.token })).status).toBe(201);
  });

  it('400 validation_failed for a blank text, on create and on edit', async () => {
    const res = await t.post(base(), { text_content: ' \n\t ' }, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: { field: 'text_content' } });
    const s = await create();
    expect((await t.patch(`${base()}${s.id}/`, { text_content: '   ' }, { token: owner.token })).status).toBe(400);
  });

  it('403 feature_gated on a book whose plan lacks api_access (after schema validation); nothing written', async () => {
    const free = (await newBook(t, owner)).slug;
    const res = await t.post(base(free), { text_content: 'x' }, { token: owner.token });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'feature_gated', details: { feature: 'api_access' } });
    expect((await t.post(base(free), { text_content: 'x', contributor_email: 'e@x.test' }, { token: owner.token })).status).toBe(422);
    const rows = await t.db.query(`SELECT 1 FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`, [free]);
    expect(rows).toHaveLength(0);
    // Only create is gated: moderating a memory that came in another way works on a free book.
    const s = await newSubmission(t, free, owner);
    expect((await t.post(`${base(free)}${s.id}/approve/`, undefined, { token: owner.token })).status).toBe(200);
  });
});

describe('submission ids', () => {
  const ROUTES: [string, string, unknown?][] = [
    ['GET', ''],
    ['PATCH', '', { text_content: 'x' }],
    ['DELETE', ''],
    ['POST', 'approve/'],
    ['POST', 'reject/'],
    ['POST', 'pin/'],
    ['POST', 'unpin/'],
  ];

  it.each(['not-a-uuid', '123', 'ZZZZZZZZ-0000-7000-8000-000000000000', 'a%2Fb', "'%20OR%20'1'='1", 'x'.repeat(300)])(
    'a malformed id (%s) is 404 not_found on every route, and no response is stored for replay',
    async (id) => {
      const stored = async () => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM idempotency_keys WHERE user_id = $1`, [owner.user.id]))[0].n;
      const before = await stored();
      for (const [method, path, body] of ROUTES) {
        const res = await t.request(method, `${base()}${id}/${path}`, { token: owner.token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
      expect(await stored()).toBe(before);
    },
  );

  it('dot segments as the id are 404 over a real socket (inject would resolve them to the parent path first)', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const send = (method: string, path: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = { authorization: `Bearer ${owner.token}`, 'idempotency-key': crypto.randomUUID() };
        const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
    for (const seg of ['..', '%2e%2e', '.']) {
      for (const [method, path] of ROUTES) expect(await send(method, `${base()}${seg}/${path}`), `${method} ${seg}/${path}`).toBe(404);
    }
  });

  it("another book's submission id, and an unknown one, are 404 everywhere; nothing changes", async () => {
    const otherBook = (await newBook(t, owner, { plan: 'plus' })).slug;
    const foreign = (await t.post(base(otherBook), { text_content: 'elsewhere' }, { token: owner.token })).body;
    for (const id of [foreign.id, '01935f4e-8c2a-7b1e-9a51-2f6f3c1d0e4b']) {
      for (const [method, path, body] of ROUTES) {
        const res = await t.request(method, `${base()}${id}/${path}`, { token: owner.token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect((await t.get(`${base(otherBook)}${foreign.id}/`, { token: owner.token })).body).toEqual(foreign);
  });
});

describe('PATCH …/submissions/{id}/ errors', () => {
  it('412 precondition_failed with details.current_etag on a stale If-Match; a weak validator never matches; nothing written', async () => {
    const s = await create();
    const url = `${base()}${s.id}/`;
    const moved = await t.patch(url, { text_content: 'v2' }, { token: owner.token });
    const stale = await t.patch(url, { text_content: 'lost' }, { token: owner.token, headers: { 'if-match': s.etag } });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'precondition_failed', details: { current_etag: moved.body.etag } });
    expect((await t.patch(url, { text_content: 'lost' }, { token: owner.token, headers: { 'if-match': `W/${moved.body.etag}` } })).status).toBe(412);
    expect((await t.get(url, { token: owner.token })).body.text_content).toBe('v2');
    // A list of tags passes when one matches.
    expect((await t.patch(url, { text_content: 'v3' }, { token: owner.token, headers: { 'if-match': `"x", ${moved.body.etag}` } })).status).toBe(200);
  });

  it.each(['status', 'is_pinned', 'contributor_email', 'source', 'id', 'etag', 'rejection_reason'])('422 for the read-only field %s', async (field) => {
    const s = await create();
    const res = await t.patch(`${base()}${s.id}/`, { [field]: 'x' }, { token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', field], type: 'extra_forbidden' });
  });
});

describe('moderation body errors', () => {
  it('422 for a reason over 2,000 characters or of the wrong type, and for any field on approve, pin, unpin', async () => {
    const s = await create();
    expect((await t.post(`${base()}${s.id}/reject/`, { reason: 'r'.repeat(2001) }, { token: owner.token })).status).toBe(422);
    expect((await t.post(`${base()}${s.id}/reject/`, { reason: 5 }, { token: owner.token })).status).toBe(422);
    expect((await t.post(`${base()}${s.id}/reject/`, { why: 'x' }, { token: owner.token })).status).toBe(422);
    for (const action of ['approve', 'pin', 'unpin']) {
      expect((await t.post(`${base()}${s.id}/${action}/`, { reason: 'x' }, { token: owner.token })).status, action).toBe(422);
    }
    expect((await t.get(`${base()}${s.id}/`, { token: owner.token })).body.status).toBe('pending');
    expect((await t.post(`${base()}${s.id}/reject/`, { reason: 'r'.repeat(2000) }, { token: owner.token })).status).toBe(200);
  });
});

describe('list query errors', () => {
  it.each([
    ['limit', '0'],
    ['limit', '201'],
    ['limit', 'abc'],
    ['updated_since', 'yesterday'],
    ['updated_since', '2026-02-31T00:00:00Z'],
    ['cursor', 'garbage'],
  ])('400 query_param_invalid for %s=%s with details {param, value}', async (param, value) => {
    const res = await t.get(base(), { token: owner.token, query: { [param]: value } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'query_param_invalid', details: { param, value } });
  });

  it('a cursor is tamper-evident and bound to its ordering', async () => {
    for (let i = 0; i < 3; i++) await create();
    const page = await t.get(base(), { token: owner.token, query: { limit: '1' } });
    const cursor: string = page.body.next_cursor;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await t.get(base(), { token: owner.token, query: { cursor: tampered } })).status).toBe(400);
    const other = await t.get(base(), { token: owner.token, query: { cursor, updated_since: '2000-01-01T00:00:00Z' } });
    expect(other.status).toBe(400);
    expect(other.body.details.param).toBe('cursor');
  });
});
