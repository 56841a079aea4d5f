/**
 * Exports end to end, on both stores: request, poll, fetch the signed
 * artifact and read what it holds (PDF, JSON, ZIP), the intents' bleed and
 * gutter, the list, and an identical request answering the pending job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFixtures, fixturePaths } from '../../helpers/media-fixtures.js';
import { unzip } from '../../helpers/unzip.js';
import { addMember, newUser, setGrace, type TestUser } from '../../helpers/factories.js';
import { readFile } from 'node:fs/promises';
import { upload, processed } from '../media/media-setup.js';
import { approvedMemory, buildExportApp, exportBook, exportsPath, fetchSigned, settled, STORES, type ExportTestApp } from './exports-setup.js';

for (const store of STORES) {
  describe(`exports (${store} store)`, () => {
    let t: ExportTestApp;
    let owner: TestUser;
    let slug: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      await ensureFixtures(['jpeg', 'mp3']);
      t = await buildExportApp(store);
      owner = await newUser(t, { firstName: 'Ada', lastName: 'Lovelace' });
      slug = (await exportBook(t, owner, { title: 'Grandma turns 90' })).slug;
      // Oldest first, but the pinned one leads; the pending one is not in the book.
      ids.first = (await approvedMemory(t, owner, slug, { text: 'The first memory', name: 'Sam' })).id;
      const withPhoto = await approvedMemory(t, owner, slug, { text: 'With a photo and a voice 🎉' });
      ids.photo = withPhoto.id;
      // Media makes an approved row pending again: upload, let it process, approve again.
      const photo = await upload(t, owner, slug, withPhoto.id, await readFile(fixturePaths.jpeg), { filename: 'lake.jpg', contentType: 'image/jpeg' });
      expect(photo.status).toBe(201);
      const voice = await upload(t, owner, slug, withPhoto.id, await readFile(fixturePaths.mp3), { filename: 'voice.mp3', contentType: 'audio/mpeg' });
      expect(voice.status).toBe(201);
      for (const m of [photo, voice]) await processed(t, owner, m.headers.location as string);
      expect((await t.post(`/api/v1/books/${slug}/submissions/${withPhoto.id}/approve/`, undefined, { token: owner.token })).status).toBe(200);
      ids.pinned = (await approvedMemory(t, owner, slug, { text: 'Pinned, so it comes first', pin: true })).id;
      await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'Still pending' }, { token: owner.token });
    }, 120_000);
    afterAll(() => t?.close());

    it('renders a PDF: 202 pending with Location, then complete, then a signed link to the file', async () => {
      const res = await t.post(exportsPath(slug), { theme: 'botanical_luxe' }, { token: owner.token });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ book_slug: slug, status: 'pending', theme: 'botanical_luxe', intent: 'screen', export_format: 'pdf', bleed_mm: 0, gutter_mm: 0 });
      expect(res.body).toMatchObject({ started_at: null, completed_at: null, error: null, size_bytes: null, page_count: null, expires_at: null });
      expect(res.headers.location).toBe(`/api/v1/books/${slug}/exports/${res.body.id}/`);

      const done = await settled(t, owner, slug, res.body.id);
      expect(done.body.status).toBe('complete');
      expect(done.body.error).toBeNull();
      expect(done.body.page_count).toBeGreaterThanOrEqual(4);
      expect(done.body.page_count % 2).toBe(0);
      expect(done.body.size_bytes).toBeGreaterThan(10_000);
      expect(Date.parse(done.body.started_at)).toBeLessThanOrEqual(Date.parse(done.body.completed_at));
      const kept = Date.parse(done.body.expires_at) - Date.parse(done.body.completed_at);
      expect(Math.abs(kept - 7 * 24 * 3600 * 1000)).toBeLessThan(1000);

      const before = Date.now();
      const artifact = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
      expect(artifact.status).toBe(200);
      const ttl = Date.parse(artifact.body.expires_at) - before;
      expect(ttl).toBeGreaterThan(890_000);
      expect(ttl).toBeLessThanOrEqual(901_000);
      if (store === 's3') expect(artifact.body.download_url).toContain('X-Amz-Expires=900');
      const file = await fetchSigned(t, artifact.body.download_url);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toContain('application/pdf');
      expect(file.headers['content-disposition']).toContain(`${slug}-botanical_luxe-screen.pdf`);
      expect(file.body.subarray(0, 5).toString()).toBe('%PDF-');
      expect(file.body.length).toBe(done.body.size_bytes);
      expect((await t.storedKeys()).filter((k) => k.startsWith('exports/'))).toContain(
        `exports/${(await t.db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [slug]))[0].id}/${res.body.id}/book.pdf`,
      );
    });

    it('maps each intent to its bleed and gutter', async () => {
      for (const [intent, bleed, gutter] of [
        ['screen', 0, 0],
        ['home', 0, 10],
        ['shop', 3, 15],
      ] as const) {
        const res = await t.post(exportsPath(slug), { theme: 'modern_clean', intent }, { token: owner.token });
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({ intent, bleed_mm: bleed, gutter_mm: gutter });
      }
    });

    it('exports JSON: the approved memories pinned first, then oldest first, with media metadata', async () => {
      const res = await t.post(exportsPath(slug), { theme: 'elegant_classic', export_format: 'json' }, { token: owner.token });
      expect(res.status).toBe(202);
      expect((await settled(t, owner, slug, res.body.id)).body).toMatchObject({ status: 'complete', page_count: null });
      const artifact = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
      const file = await fetchSigned(t, artifact.body.download_url);
      expect(file.headers['content-type']).toContain('application/json');
      const doc = JSON.parse(file.body.toString('utf8'));
      expect(Object.keys(doc)).toEqual(['format_version', 'exported_at', 'book', 'submissions']);
      expect(doc.format_version).toBe(1);
      expect(doc.book).toMatchObject({ slug, title: 'Grandma turns 90' });
      expect(doc.submissions.map((s: { id: string }) => s.id)).toEqual([ids.pinned, ids.first, ids.photo]);
      expect(doc.submissions[0]).toMatchObject({ is_pinned: true, text_content: 'Pinned, so it comes first' });
      expect(doc.submissions[1]).toMatchObject({ contributor_name: 'Sam', contributor_user: { first_name: 'Ada', last_name: 'Lovelace' } });
      const media = doc.submissions[2].media;
      expect(media.map((m: { kind: string }) => m.kind)).toEqual(['image', 'audio']);
      expect(media[0]).toMatchObject({ mime_type: 'image/jpeg', original_filename: 'lake.jpg', width: 640, height: 480, processing_status: 'complete' });
      expect(media[0].sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(media[0]).not.toHaveProperty('file');
    });

    it('exports a ZIP: the JSON and the original media files, byte for byte', async () => {
      const res = await t.post(exportsPath(slug), { theme: 'elegant_classic', export_format: 'zip' }, { token: owner.token });
      expect((await settled(t, owner, slug, res.body.id)).body.status).toBe('complete');
      const artifact = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
      const file = await fetchSigned(t, artifact.body.download_url);
      expect(file.headers['content-type']).toContain('application/zip');
      expect(file.headers['content-disposition']).toContain(`${slug}.zip`);
      const entries = await unzip(file.body);
      const doc = JSON.parse(entries.get(`${slug}/book.json`)!.toString('utf8'));
      expect(doc.submissions.map((s: { id: string }) => s.id)).toEqual([ids.pinned, ids.first, ids.photo]);
      const [image, audio] = doc.submissions[2].media;
      expect(image.file).toBe(`media/${ids.photo}/${image.id}.jpg`);
      expect(audio.file).toBe(`media/${ids.photo}/${audio.id}.mp3`);
      expect(entries.get(`${slug}/${image.file}`)!.equals(await readFile(fixturePaths.jpeg))).toBe(true);
      expect(entries.get(`${slug}/${audio.file}`)!.equals(await readFile(fixturePaths.mp3))).toBe(true);
      expect([...entries.keys()].sort()).toEqual([`${slug}/book.json`, `${slug}/${image.file}`, `${slug}/${audio.file}`].sort());
    });

    it('lists the book’s exports newest first, and reads one', async () => {
      const list = await t.get(exportsPath(slug), { token: owner.token, query: { limit: '2' } });
      expect(list.status).toBe(200);
      expect(list.headers['last-modified']).toBeTruthy();
      expect(list.body.items).toHaveLength(2);
      expect(list.body.has_more).toBe(true);
      const next = await t.get(exportsPath(slug), { token: owner.token, query: { cursor: list.body.next_cursor, limit: '200' } });
      const all = [...list.body.items, ...next.body.items];
      const created = all.map((e: { created_at: string }) => e.created_at);
      expect(created).toEqual([...created].sort().reverse());
      const one = await t.get(`${exportsPath(slug)}${all[0].id}/`, { token: owner.token });
      expect(one.body.id).toBe(all[0].id);
    });

    it('is open to admins, also during a billing grace period', async () => {
      const admin = await newUser(t);
      await addMember(t, slug, admin, 'admin');
      await setGrace(t, slug, true);
      try {
        const res = await t.post(exportsPath(slug), { theme: 'storybook', export_format: 'json' }, { token: admin.token });
        expect(res.status).toBe(202);
        expect((await settled(t, admin, slug, res.body.id)).body.status).toBe('complete');
        expect((await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: admin.token })).status).toBe(200);
      } finally {
        await setGrace(t, slug, false);
      }
    });
  });
}

describe('an identical request while one is pending', () => {
  let t: ExportTestApp;
  beforeAll(async () => {
    t = await buildExportApp('local', { worker: false });
  });
  afterAll(() => t?.close());

  it('answers the pending job instead of rendering twice; any difference makes a new one', async () => {
    const owner = await newUser(t);
    const { slug } = await exportBook(t, owner);
    const first = await t.post(exportsPath(slug), { theme: 'storybook', intent: 'home' }, { token: owner.token });
    const again = await t.post(exportsPath(slug), { theme: 'storybook', intent: 'home', export_format: 'pdf' }, { token: owner.token });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    const other = await t.post(exportsPath(slug), { theme: 'storybook', intent: 'shop' }, { token: owner.token });
    expect(other.body.id).not.toBe(first.body.id);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.queue.schema}.job WHERE name = 'export.render'`);
    expect(n).toBe(2);
  });

  it('replays a request sent again with the same Idempotency-Key, Location included', async () => {
    const owner = await newUser(t);
    const { slug } = await exportBook(t, owner);
    const key = crypto.randomUUID();
    const first = await t.post(exportsPath(slug), { theme: 'editorial_noir', export_format: 'zip' }, { token: owner.token, idempotencyKey: key });
    const replay = await t.post(exportsPath(slug), { theme: 'editorial_noir', export_format: 'zip' }, { token: owner.token, idempotencyKey: key });
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.body).toEqual(first.body);
    const reused = await t.post(exportsPath(slug), { theme: 'storybook', export_format: 'zip' }, { token: owner.token, idempotencyKey: key });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
  });
});
