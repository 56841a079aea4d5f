import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser } from '../../helpers/factories.js';
import { createQuotaService } from '../../../src/services/books/quota-service.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('POST /books/', () => {
  it('creates a book on the default plan: 201, Location, ETag, slug from the title, defaults', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/books/', { title: "Grandma's 90th Birthday!" }, { token: u.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug: 'grandmas-90th-birthday',
      title: "Grandma's 90th Birthday!",
      subtitle: '',
      theme: 'elegant_classic',
      settings: {},
      use_case_slug: null,
      is_public: false,
      status: 'active',
      plan: 'free',
      role: 'owner',
      archived_at: null,
    });
    expect(res.headers.location).toBe('/api/v1/books/grandmas-90th-birthday/');
    expect(res.headers.etag).toBe(res.body.etag);
    expect(res.body.etag).toBe(`"${res.body.updated_at}"`);
    // The same title again gets another unique slug.
    const again = await t.post('/api/v1/books/', { title: "Grandma's 90th Birthday!" }, { token: u.token });
    expect(again.body.slug).toMatch(/^grandmas-90th-birthday-[a-z0-9]{6}$/);
  });

  it('accepts every optional field', async () => {
    const u = await newUser(t);
    const res = await t.post(
      '/api/v1/books/',
      { title: 'Wedding', subtitle: 'June', theme: 'wedding_album', settings: { accent: '#aa0000' }, use_case_slug: 'wedding', is_public: true },
      { token: u.token },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ subtitle: 'June', theme: 'wedding_album', settings: { accent: '#aa0000' }, use_case_slug: 'wedding', is_public: true });
  });

  it('a non-default plan consumes a held slot; the quota shows it', async () => {
    const u = await newUser(t);
    await createQuotaService({ db: t.db }).grantSlots(u.user.id, 'plus', 2);
    const res = await t.post('/api/v1/books/', { title: 'Plus book', plan: 'plus' }, { token: u.token });
    expect(res.status).toBe(201);
    expect(res.body.plan).toBe('plus');
    const q = await t.get('/api/v1/me/quotas/', { token: u.token });
    expect(q.body.book_slots).toContainEqual({ plan: 'plus', purchased: 2, used: 1, available: 1 });
    expect(q.body.book_slots).toContainEqual({ plan: 'premium', purchased: 0, used: 0, available: 0 });
    expect(q.body.storage).toEqual({ used_bytes: 0, limit_bytes: 10737418240 });
  });
});

describe('GET and PATCH /books/{slug}/', () => {
  it('reads a book with its etag; PATCH updates, moves the ETag, honours If-Match', async () => {
    const u = await newUser(t);
    const b = await newBook(t, u, { title: 'Patch me' });
    const got = await t.get(`/api/v1/books/${b.slug}/`, { token: u.token });
    expect(got.status).toBe(200);
    expect(got.headers.etag).toBe(got.body.etag);

    const res = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'New', use_case_slug: 'memorial', settings: { a: 1 } }, { token: u.token, headers: { 'if-match': got.body.etag } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subtitle: 'New', use_case_slug: 'memorial', settings: { a: 1 }, slug: b.slug });
    expect(res.headers.etag).toBe(res.body.etag);
    expect(res.body.etag).not.toBe(got.body.etag);

    const stale = await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'Lost' }, { token: u.token, headers: { 'if-match': got.body.etag } });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'precondition_failed', details: { current_etag: res.body.etag } });
    // Without If-Match the last write wins.
    expect((await t.patch(`/api/v1/books/${b.slug}/`, { title: 'Renamed' }, { token: u.token })).body).toMatchObject({ title: 'Renamed', slug: b.slug });
  });

  it('an admin may read and update; role shows in the book', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const b = await newBook(t, owner);
    await addMember(t, b.slug, admin, 'admin');
    const got = await t.get(`/api/v1/books/${b.slug}/`, { token: admin.token });
    expect(got.body.role).toBe('admin');
    expect((await t.patch(`/api/v1/books/${b.slug}/`, { subtitle: 'by admin' }, { token: admin.token })).status).toBe(200);
  });
});

describe('archive and restore', () => {
  it('archive hides the book from the list; repeat is a 200 no-op; restore brings it back', async () => {
    const u = await newUser(t);
    const b = await newBook(t, u);
    const a1 = await t.post(`/api/v1/books/${b.slug}/archive/`, undefined, { token: u.token });
    expect(a1.status).toBe(200);
    expect(a1.body.status).toBe('archived');
    expect(a1.body.archived_at).not.toBeNull();
    const a2 = await t.post(`/api/v1/books/${b.slug}/archive/`, undefined, { token: u.token });
    expect(a2.status).toBe(200);
    expect(a2.body.etag).toBe(a1.body.etag);

    const list = await t.get('/api/v1/books/', { token: u.token });
    expect(list.body.items.map((x: { slug: string }) => x.slug)).not.toContain(b.slug);
    const archived = await t.get('/api/v1/books/?status=archived', { token: u.token });
    expect(archived.body.items.map((x: { slug: string }) => x.slug)).toEqual([b.slug]);
    // Still readable directly.
    expect((await t.get(`/api/v1/books/${b.slug}/`, { token: u.token })).body.status).toBe('archived');

    const r = await t.post(`/api/v1/books/${b.slug}/restore/`, {}, { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'active', archived_at: null });
    expect((await t.post(`/api/v1/books/${b.slug}/restore/`, undefined, { token: u.token })).status).toBe(200);
  });
});

describe('GET /books/', () => {
  it('lists only books where the caller is owner or admin, in the books_sort order', async () => {
    const u = await newUser(t);
    const other = await newUser(t);
    const mine = [await newBook(t, u, { title: 'Charlie' }), await newBook(t, u, { title: 'alpha' })];
    const administered = await newBook(t, other, { title: 'Bravo' });
    const contributed = await newBook(t, other, { title: 'Delta' });
    await newBook(t, other, { title: 'Not mine' });
    await addMember(t, administered.slug, u, 'admin');
    await addMember(t, contributed.slug, u, 'contributor');

    const byCreated = await t.get('/api/v1/books/', { token: u.token });
    expect(byCreated.status).toBe(200);
    expect(byCreated.body.has_more).toBe(false);
    expect(byCreated.body.next_cursor).toBeNull();
    const slugs = byCreated.body.items.map((x: { slug: string }) => x.slug);
    expect(slugs.sort()).toEqual([...mine.map((m) => m.slug), administered.slug].sort());
    expect(typeof byCreated.headers['last-modified']).toBe('string');

    await t.patch('/api/v1/me/', { books_sort: 'title' }, { token: u.token });
    const byTitle = await t.get('/api/v1/books/', { token: u.token });
    expect(byTitle.body.items.map((x: { title: string }) => x.title)).toEqual(['alpha', 'Bravo', 'Charlie']);

    await t.patch('/api/v1/me/', { books_sort: 'role' }, { token: u.token });
    const byRole = await t.get('/api/v1/books/', { token: u.token });
    expect(byRole.body.items.map((x: { role: string }) => x.role)).toEqual(['owner', 'owner', 'admin']);

    await t.patch('/api/v1/me/', { books_sort: 'created' }, { token: u.token });
    const created = await t.get('/api/v1/books/', { token: u.token });
    expect(created.body.items.map((x: { title: string }) => x.title)).toEqual(['Bravo', 'alpha', 'Charlie']);
  });

  it('pages with a keyset cursor in every ordering without gaps or repeats', async () => {
    const u = await newUser(t);
    const titles = ['e', 'b', 'd', 'a', 'c', 'g', 'f'];
    for (const title of titles) await newBook(t, u, { title });
    for (const sort of ['activity', 'title', 'created', 'role']) {
      await t.patch('/api/v1/me/', { books_sort: sort }, { token: u.token });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await t.get(`/api/v1/books/?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: u.token });
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.items.map((x: { title: string }) => x.title));
        cursor = res.body.next_cursor;
        expect(res.body.has_more).toBe(cursor !== null);
      } while (cursor);
      expect([...seen].sort()).toEqual([...titles].sort());
      if (sort === 'title') expect(seen).toEqual([...titles].sort());
    }
  });
});

describe('GET /plans/', () => {
  it('answers the catalog to anyone', async () => {
    const res = await t.get('/api/v1/plans/');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.items.map((p: { slug: string }) => p.slug)).toEqual(['free', 'plus', 'premium']);
    const [free, plus, premium] = res.body.items;
    expect(free).toMatchObject({ is_default: true, price: null, max_members_per_book: 5, max_approved_submissions_per_book: 50, channels: ['web', 'email'] });
    expect(free.features).toEqual({
      api_access: false, pdf_export: false, json_export: true, zip_export: false,
      feature_ai_enhancer: false, feature_audio: false, feature_video: false, feature_live_photo: false, feature_transcription: false,
    });
    expect(plus.features).toMatchObject({ api_access: true, pdf_export: true, feature_audio: true, feature_live_photo: true, feature_video: false, zip_export: false });
    expect(plus).toMatchObject({ max_members_per_book: 25, channels: ['web', 'email', 'sms', 'telegram'] });
    expect(Object.values(premium.features).every(Boolean)).toBe(true);
    expect(premium).toMatchObject({ max_members_per_book: 100, max_video_bytes: 80 * 1024 * 1024 });
  });
});

describe('permissions and billing', () => {
  it('permissions mirror the plan and list the actions the guard allows', async () => {
    const owner = await newUser(t);
    const admin = await newUser(t);
    const b = await newBook(t, owner, { plan: 'premium' });
    await addMember(t, b.slug, admin, 'admin');
    const p = await t.get(`/api/v1/books/${b.slug}/permissions/`, { token: owner.token });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ book_slug: b.slug, role: 'owner', feature_ai_enhancer: true, feature_audio: true, feature_video: true, feature_live_photo: true });
    expect(p.body.actions).toEqual(expect.arrayContaining(['manage_members', 'delete', 'archive', 'read_billing', 'create_submission']));
    const pa = await t.get(`/api/v1/books/${b.slug}/permissions/`, { token: admin.token });
    expect(pa.body.role).toBe('admin');
    expect(pa.body.actions).toContain('manage_members');
    expect(pa.body.actions).not.toContain('delete');
    expect(pa.body.actions).not.toContain('read_billing');
  });

  it('billing shows the latest record with plan and quota snapshot', async () => {
    const owner = await newUser(t);
    const b = await newBook(t, owner, { plan: 'plus' });
    const res = await t.get(`/api/v1/books/${b.slug}/billing/`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      book_slug: b.slug,
      status: 'active',
      grace_period_ends_at: null,
      quota: { members_used: 1, members_limit: 25, storage_used_bytes: 0, storage_limit_bytes: 10737418240 },
    });
    expect(res.body.plan.slug).toBe('plus');
  });
});
