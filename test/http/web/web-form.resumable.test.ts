/**
 * The web form's resumable uploads (tus) over a real socket: the words are
 * saved first and hand out a ticket; the photo goes in parts, survives a
 * connection cut mid-part (HEAD tells the offset, the next PATCH resumes
 * there), and ends on the memory once; wrong types and abandoned uploads.
 * Runs on disk and on S3 (s3rver), as the configured store decides.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { startS3Server, type TestS3Server } from '../../helpers/s3-server.js';
import { formPathOf, webClient, type WebClient } from './web-client.js';

const MiB = 1024 * 1024;

/** A photo of a few megabytes: noise does not compress. */
async function bigJpeg(): Promise<Buffer> {
  const width = 1800;
  const height = 1400;
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

for (const storage of ['local', 's3'] as const) {
  describe(`resumable uploads from the web form (${storage})`, () => {
    let s3: TestS3Server | undefined;
    let t: TestApp;
    let base: string;
    let photo: Buffer;

    beforeAll(async () => {
      if (storage === 's3') s3 = await startS3Server();
      t = await buildTestApp({ worker: true, env: s3?.env ?? {} });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const addr = t.app.server.address() as { port: number };
      base = `http://127.0.0.1:${addr.port}`;
      photo = await bigJpeg();
    });
    afterAll(async () => {
      await t?.close();
      await s3?.close();
    });

    /** One request over the socket as the page's script sends it: our origin, the CSRF cookie and header. */
    function send(client: WebClient, method: string, url: string, headers: Record<string, string> = {}, body?: Buffer, o: { cutAfter?: number } = {}): Promise<Raw> {
      return new Promise((resolve, reject) => {
        const req = http.request(`${base}${url}`, {
          method,
          headers: {
            cookie: client.cookieHeader(),
            'x-csrftoken': client.jar.get('csrftoken') ?? '',
            origin: t.config.http.publicOrigin,
            'tus-resumable': '1.0.0',
            ...(body ? { 'content-length': String(body.length) } : {}),
            ...headers,
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        });
        req.on('error', (err) => (o.cutAfter !== undefined ? resolve({ status: 0, headers: {}, body: String(err) }) : reject(err)));
        if (!body) return void req.end();
        if (o.cutAfter === undefined) return void req.end(body);
        // The connection drops mid-part: some bytes went, then the socket is gone.
        req.write(body.subarray(0, o.cutAfter), () => setTimeout(() => req.destroy(), 300));
      });
    }

    async function openForm(owner: TestUser) {
      const { slug } = await newBook(t, owner, { title: 'Grandma Rose turns 90' });
      const form = await formPathOf(t, slug);
      const client = webClient(t);
      expect((await client.get(form)).status).toBe(200);
      return { slug, form, client };
    }

    /** The words, posted first by the page's script: a 201 with the upload's path and a ticket per file. */
    async function saveWords(client: WebClient, form: string, size: number, text = 'Every summer at the lake, Grandma Rose was first into the water.') {
      const res = await client.submit(form, { name: 'Aunt May', text, uploads: 'photo', photo_size: String(size) });
      expect(res.status).toBe(201);
      const body = JSON.parse(res.text) as { upload_url: string; thanks_url: string; tickets: { field: string; token: string }[] };
      expect(body.tickets).toHaveLength(1);
      expect(body.tickets[0]!.field).toBe('photo');
      return body;
    }

    async function create(client: WebClient, uploadUrl: string, token: string, length: number, filetype = 'image/jpeg') {
      return send(client, 'POST', uploadUrl, {
        'upload-length': String(length),
        'upload-metadata': `token ${b64(token)},filename ${b64('lake.jpg')},filetype ${b64(filetype)}`,
      });
    }

    const memoriesOf = async (slug: string) =>
      t.db.query<{ id: string; text_content: string; media: number }>(
        `SELECT s.id, s.text_content, (SELECT count(*)::int FROM media m WHERE m.submission_id = s.id) AS media
           FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1`,
        [slug],
      );

    it('sends the photo in parts, resumes after a cut at the offset HEAD gives, and stores the memory and its photo once', async () => {
      const owner = await newUser(t);
      const { slug, form, client } = await openForm(owner);
      const saved = await saveWords(client, form, photo.length);
      expect(saved.upload_url).toBe(form.replace(`/b/${slug}/?`, `/b/${slug}/uploads/?`));
      expect(saved.thanks_url).toBe(form.replace(`/b/${slug}/?`, `/b/${slug}/thanks/?`));
      // The words are in before a byte of the photo.
      expect(await memoriesOf(slug)).toMatchObject([{ text_content: expect.stringContaining('Grandma Rose'), media: 0 }]);

      const created = await create(client, saved.upload_url, saved.tickets[0]!.token, photo.length);
      expect(created.status).toBe(201);
      const location = created.headers.location!;
      expect(location).toMatch(new RegExp(`^/b/${slug}/uploads/[A-Za-z0-9_-]{32}\\?key=`));

      const patch = (offset: number, part: Buffer, o: { cutAfter?: number } = {}) =>
        send(client, 'PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, part, o);

      // The first part.
      const first = await patch(0, photo.subarray(0, MiB));
      expect(first.status).toBe(204);
      expect(Number(first.headers['upload-offset'])).toBe(MiB);
      // The second is cut after 300 KB.
      const cut = await patch(MiB, photo.subarray(MiB, 2 * MiB), { cutAfter: 300 * 1024 });
      expect(cut.status).toBe(0);
      // Resumed where the server says it has the bytes to (the store keeps what arrived, or only whole parts).
      let offset = 0;
      for (let i = 0; i < 40; i++) {
        const head = await send(client, 'HEAD', location);
        expect(head.status).toBe(200);
        expect(Number(head.headers['upload-length'])).toBe(photo.length);
        offset = Number(head.headers['upload-offset']);
        if (offset >= MiB) break;
      }
      expect(offset).toBeGreaterThanOrEqual(MiB);
      expect(offset).toBeLessThanOrEqual(MiB + 300 * 1024);
      while (offset < photo.length) {
        let res = await patch(offset, photo.subarray(offset, Math.min(offset + MiB, photo.length)));
        // The cut request may still hold the upload's lock for a moment: the protocol's answer is 423, try again.
        for (let i = 0; res.status === 423 && i < 20; i++) {
          await new Promise((r) => setTimeout(r, 250));
          res = await patch(offset, photo.subarray(offset, Math.min(offset + MiB, photo.length)));
        }
        expect(res.status).toBe(204);
        offset = Number(res.headers['upload-offset']);
      }

      const memories = await memoriesOf(slug);
      expect(memories).toHaveLength(1);
      expect(memories[0]!.media).toBe(1);
      const [m] = await t.db.query<{ sha256: string; mime_type: string; size_bytes: string; original_filename: string }>(
        `SELECT sha256, mime_type, size_bytes, original_filename FROM media WHERE submission_id = $1`,
        [memories[0]!.id],
      );
      expect(m).toMatchObject({ sha256: createHash('sha256').update(photo).digest('hex'), mime_type: 'image/jpeg', original_filename: 'lake.jpg' });
      expect(Number(m!.size_bytes)).toBe(photo.length);
      // A HEAD after the last answer was lost: complete, so the client ends as the upload did; nothing is attached twice.
      const again = await send(client, 'HEAD', location);
      expect(again.status).toBe(200);
      expect(Number(again.headers['upload-offset'])).toBe(photo.length);
      // The ticket is spent: a new upload with it is refused.
      expect((await create(client, saved.upload_url, saved.tickets[0]!.token, photo.length)).status).toBe(404);
      expect((await memoriesOf(slug))[0]!.media).toBe(1);
      // The parts are gone from the store.
      if (storage === 'local') expect(readdirSync(path.join(t.config.dataDir, 'uploads'))).toEqual([]);
      else expect(existsSync(path.join(s3!.directory, s3!.bucket, 'tus-parts')) ? readdirSync(path.join(s3!.directory, s3!.bucket, 'tus-parts')) : []).toEqual([]);
    });

    it('refuses a file that is not a photo: by its declared type at creation, by its bytes at the end; the words stay', async () => {
      const owner = await newUser(t);
      const { slug, form, client } = await openForm(owner);
      const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200 * 1024)]);
      const saved = await saveWords(client, form, pdf.length);
      const declared = await create(client, saved.upload_url, saved.tickets[0]!.token, pdf.length, 'application/pdf');
      expect(declared.status).toBe(400);
      expect(JSON.parse(declared.body)).toMatchObject({ code: 'validation_failed' });

      // Declared as a JPEG, but the bytes say otherwise.
      const created = await create(client, saved.upload_url, saved.tickets[0]!.token, pdf.length, 'image/jpeg');
      expect(created.status).toBe(201);
      const res = await send(client, 'PATCH', created.headers.location!, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, pdf);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'validation_failed', details: { field: 'file', detected_mime_type: 'application/pdf' } });
      expect(await memoriesOf(slug)).toMatchObject([{ text_content: expect.stringContaining('Grandma Rose'), media: 0 }]);
      // Nothing of it stays: the parts are removed, HEAD finds no upload to resume.
      expect((await send(client, 'HEAD', created.headers.location!)).status).toBe(404);
      const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug]);
      expect(n).toBe(0);
    });

    it('refuses uploads without the ticket, the form key or our page’s CSRF header, and a declared size over the cap before saving', async () => {
      const owner = await newUser(t);
      const { slug, form, client } = await openForm(owner);
      const tooBig = await client.submit(form, { name: 'Aunt May', text: 'The lake.', uploads: 'photo', photo_size: String(21 * MiB) });
      expect(tooBig.status).toBe(413);
      expect(tooBig.text).toContain('The lake.');
      expect(await memoriesOf(slug)).toEqual([]);

      const saved = await saveWords(client, form, photo.length);
      expect((await create(client, saved.upload_url, 'x'.repeat(43), photo.length)).status).toBe(404);
      expect((await create(client, `/b/${slug}/uploads/`, saved.tickets[0]!.token, photo.length)).status).toBe(404);
      const noHeader = await send(client, 'POST', saved.upload_url, { 'x-csrftoken': '', 'upload-length': '10', 'upload-metadata': `token ${b64(saved.tickets[0]!.token)}` });
      expect(noHeader.status).toBe(403);
      expect((await create(client, saved.upload_url, saved.tickets[0]!.token, 21 * MiB)).status).toBe(413);
      expect((await send(client, 'HEAD', `/b/${slug}/uploads/${'A'.repeat(32)}${saved.upload_url.slice(saved.upload_url.indexOf('?'))}`)).status).toBe(404);
    });

    it('a voice note goes the same way on a plan that takes audio; a plan that takes none shows no field and refuses one', async () => {
      const owner = await newUser(t);
      const { slug } = await newBook(t, owner, { title: 'Grandpa’s stories', plan: 'plus' });
      const form = await formPathOf(t, slug);
      const client = webClient(t);
      const page = await client.get(form);
      // The field is there for the script to show (hidden without it, and nameless: a plain post never carries it).
      expect(page.text).toMatch(/<div id="media-field" hidden>/);
      expect(page.text).toContain('<input type="file" id="media" accept="audio/*,video/*" aria-describedby="media-hint">');
      const mp3 = await readFixture('mp3');
      const res = await client.submit(form, { name: 'Aunt May', text: 'His laugh, recorded at the lake.', uploads: 'photo,media', photo_size: String(photo.length), media_size: String(mp3.length) });
      expect(res.status).toBe(201);
      const saved = JSON.parse(res.text) as { upload_url: string; tickets: { field: string; token: string }[] };
      expect(saved.tickets.map((x) => x.field)).toEqual(['photo', 'media']);
      const voice = saved.tickets.find((x) => x.field === 'media')!;
      // A photo offered for the voice note's ticket is refused by its declared type.
      expect((await create(client, saved.upload_url, voice.token, photo.length, 'image/jpeg')).status).toBe(400);
      const created = await create(client, saved.upload_url, voice.token, mp3.length, 'audio/mpeg');
      expect(created.status).toBe(201);
      const done = await send(client, 'PATCH', created.headers.location!, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, mp3);
      expect(done.status).toBe(204);
      const [m] = await t.db.query<{ kind: string; mime_type: string }>(`SELECT m.kind, m.mime_type FROM media m JOIN books b ON b.id = m.book_id WHERE b.slug = $1`, [slug]);
      expect(m).toEqual({ kind: 'audio', mime_type: 'audio/mpeg' });

      const free = await openForm(owner);
      expect((await free.client.get(free.form)).text).not.toContain('id="media-field"');
      const refused = await free.client.submit(free.form, { name: 'Aunt May', text: 'Words kept.', uploads: 'media', media_size: String(mp3.length) });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Words kept.');
      expect(await memoriesOf(free.slug)).toEqual([]);
    });

    it('sweeps abandoned uploads past their expiry: the parts go, the words stay', async () => {
      const owner = await newUser(t);
      const { slug, form, client } = await openForm(owner);
      const saved = await saveWords(client, form, photo.length, 'Abandoned halfway, on a train.');
      const created = await create(client, saved.upload_url, saved.tickets[0]!.token, photo.length);
      const location = created.headers.location!;
      const part = await send(client, 'PATCH', location, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, photo.subarray(0, MiB));
      expect(part.status).toBe(204);
      const id = location.slice(location.lastIndexOf('/') + 1, location.indexOf('?'));
      if (storage === 'local') expect(existsSync(path.join(t.config.dataDir, 'uploads', id))).toBe(true);

      // Not yet expired: the sweep leaves it.
      expect(await t.services.webUploads.sweep()).toBe(0);
      expect((await send(client, 'HEAD', location)).status).toBe(200);
      await t.db.query(`UPDATE web_upload_tickets SET expires_at = now() - interval '1 second' WHERE upload_id = $1`, [id]);
      expect(await t.services.webUploads.sweep()).toBe(1);
      expect((await send(client, 'HEAD', location)).status).toBe(404);
      if (storage === 'local') expect(existsSync(path.join(t.config.dataDir, 'uploads', id))).toBe(false);
      else await expect((await t.services.webUploads.uploadParts()).read(id).then((s) => s.toArray())).rejects.toThrow();
      expect(await memoriesOf(slug)).toMatchObject([{ text_content: 'Abandoned halfway, on a train.', media: 0 }]);
      const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM web_upload_tickets WHERE upload_id = $1`, [id]);
      expect(n).toBe(0);
    });
  });
}
