import { beforeAll, describe, expect, it } from 'vitest';
import { AWKWARD_TEXTS } from '../../helpers/awkward-text.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';

// GET /books/ sends each book as JSON the database made (bookJsonSql), the
// detail as the service serialises it (toBook). The two must agree on every
// field, for every kind of value a book can hold.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const awkward = AWKWARD_TEXTS;

describe('GET /books/ items are the books, field for field', () => {
  it('every value a book holds reads the same in the list as in its detail', async () => {
    const u = await newUser(t);
    const made: string[] = [];
    for (const [i, title] of awkward.entries()) {
      const res = await t.post(
        '/api/v1/books/',
        {
          title,
          subtitle: `${title} (subtitle)`,
          settings: i === 0 ? {} : { colour: 'navy', nested: { list: [1, 2.5, -3e-7, true, null, 'x"y'] }, big: 12345678901234, note: title },
          is_public: i % 2 === 0,
          ...(i === 1 ? { use_case_slug: null } : i === 2 ? { use_case_slug: 'wedding' } : {}),
        },
        { token: u.token },
      );
      expect(res.status).toBe(201);
      made.push(res.body.slug);
    }
    // One archived, so archived_at and status vary too.
    expect((await t.post(`/api/v1/books/${made[4]}/archive/`, undefined, { token: u.token })).status).toBe(200);

    for (const status of ['active', 'archived']) {
      const list = await t.get('/api/v1/books/', { token: u.token, query: { status } });
      expect(list.status).toBe(200);
      expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(list.body.items.length).toBe(status === 'active' ? 4 : 1);
      for (const item of list.body.items) {
        const detail = await t.get(`/api/v1/books/${item.slug}/`, { token: u.token });
        expect(detail.status).toBe(200);
        expect(item).toStrictEqual(detail.body);
        // Byte for byte, settings aside (jsonb prints its own whitespace).
        const strip = (text: string) => text.replace(/"settings":\{.*?\},"use_case_slug"/s, '"settings":{},"use_case_slug"');
        expect(strip(JSON.stringify(item))).toBe(strip(detail.text));
      }
    }
  });

  it('the page envelope is the list schema: cursor and has_more as JSON', async () => {
    const u = await newUser(t);
    for (const title of ['One', 'Two', 'Three']) expect((await t.post('/api/v1/books/', { title }, { token: u.token })).status).toBe(201);
    const first = await t.get('/api/v1/books/', { token: u.token, query: { limit: '2' } });
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await t.get('/api/v1/books/', { token: u.token, query: { limit: '2', cursor: first.body.next_cursor } });
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.body.items, ...second.body.items].map((b: { title: string }) => b.title)).toEqual(['Three', 'Two', 'One']);
    const empty = await t.get('/api/v1/books/', { token: u.token, query: { status: 'archived' } });
    expect(empty.text).toBe('{"items":[],"next_cursor":null,"has_more":false}');
  });
});
