/**
 * Transcripts in what leaves the service: the printed book (set under the
 * recording's QR code, found in the shop PDF's text layer), the JSON and
 * ZIP exports (each recording's `transcript`) and the account export.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { newUser, type TestUser } from '../../helpers/factories.js';
import { ensureFixtures, fixturePaths } from '../../helpers/media-fixtures.js';
import { textInDrawingOrder } from '../../helpers/pdf-readback.js';
import { startTranscriptionServer, type TestTranscriptionServer } from '../../helpers/transcription-server.js';
import { processed, upload } from '../media/media-setup.js';
import { buildExportApp, exportBook, exportsPath, fetchSigned, settled, type ExportTestApp } from './exports-setup.js';

const CORRECTED = 'Happy ninetieth birthday, Grandma! We sang this for you in the garden.';

describe('transcripts in exports', () => {
  let t: ExportTestApp;
  let provider: TestTranscriptionServer;
  let owner: TestUser;
  let slug: string;
  let submissionId: string;
  let audioId: string;
  let videoId: string;

  beforeAll(async () => {
    await ensureFixtures(['mp3', 'mp4']);
    provider = await startTranscriptionServer();
    provider.transcriptFor = () => ({
      language: 'english',
      text: 'The drive to the lake, with everyone singing.',
      segments: [{ start: 0, end: 2, text: 'The drive to the lake, with everyone singing.' }],
    });
    t = await buildExportApp('local', { env: { TRANSCRIPTION_URL: provider.url, TRANSCRIPTION_RETRY_SECONDS: '0' } });
    owner = await newUser(t);
    slug = (await exportBook(t, owner, { title: 'Grandma turns 90' })).slug;
    const s = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'Listen to us singing for you!' }, { token: owner.token });
    submissionId = s.body.id;
    const ids: string[] = [];
    for (const [file, filename, contentType] of [
      [fixturePaths.mp3, 'song.mp3', 'audio/mpeg'],
      [fixturePaths.mp4, 'drive.mp4', 'video/mp4'],
    ] as const) {
      const up = await upload(t, owner, slug, submissionId, await readFile(file), { filename, contentType });
      expect(up.status).toBe(201);
      expect((await processed(t, owner, up.headers.location as string)).body.processing_status).toBe('complete');
      ids.push(up.body.id);
    }
    [audioId, videoId] = ids;
    // The voice note transcribed and corrected by the owner; the video transcribed as made.
    for (const id of ids) {
      const url = `/api/v1/books/${slug}/submissions/${submissionId}/media/${id}/transcription/`;
      expect((await t.post(url, undefined, { token: owner.token })).status).toBe(202);
      await eventually(() => t.get(url, { token: owner.token }), (r) => r.body.status === 'completed', 60_000);
    }
    const audioUrl = `/api/v1/books/${slug}/submissions/${submissionId}/media/${audioId}/transcription/`;
    expect((await t.patch(audioUrl, { text: CORRECTED }, { token: owner.token })).status).toBe(200);
    expect((await t.post(`/api/v1/books/${slug}/submissions/${submissionId}/approve/`, undefined, { token: owner.token })).status).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  async function artifact(body: Record<string, unknown>) {
    const res = await t.post(exportsPath(slug), body, { token: owner.token });
    expect(res.status).toBe(202);
    const done = await settled(t, owner, slug, res.body.id, 240_000);
    expect(done.body.status, done.body.error).toBe('complete');
    const a = await t.get(`${exportsPath(slug)}${res.body.id}/artifact/`, { token: owner.token });
    return (await fetchSigned(t, a.body.download_url)).body;
  }

  it("sets each completed transcript under its recording's QR code in the shop PDF (the owner's correction for the voice note)", async () => {
    const pdf = await artifact({ theme: 'elegant_classic', intent: 'shop' });
    const pages = (await textInDrawingOrder(pdf)).map((p) => p.replace(/\s+/g, ' '));
    const page = pages.find((p) => p.includes('Listen to us singing'));
    expect(page).toBeDefined();
    // Typographic quotes and apostrophes are the book's own, and a line break may read back with no space
    // between its words (the text layer has no space at a break), or with the hyphen of a word broken there:
    // compare the letters.
    const words = (s: string) => s.replace(/[’‘“”]/g, "'").replace(/[\s\u00ad-]+/g, '');
    expect(words(page!)).toContain(words(CORRECTED));
    expect(words(page!)).toContain(words('The drive to the lake, with everyone singing.'));
    // Each under its code: the voice note's caption, then its transcript; the video's caption, then its own.
    const at = (s: string) => words(page!).indexOf(words(s));
    // The captions name whose voice or video it is ("Hear Ada's voice (0:03)", "Watch Ada's video").
    expect(at('Hear ')).toBeGreaterThan(-1);
    expect(at('Hear ')).toBeLessThan(at(CORRECTED));
    expect(at(CORRECTED)).toBeLessThan(at('Watch '));
    expect(at('Watch ')).toBeLessThan(at('The drive to the lake'));
  });

  it("carries each recording's transcript in the JSON and ZIP exports", async () => {
    for (const format of ['json', 'zip'] as const) {
      const body = await artifact({ theme: 'elegant_classic', export_format: format });
      let text: string;
      if (format === 'json') text = body.toString('utf8');
      else {
        // The ZIP's book.json is stored uncompressed or deflated: find it through the JSON export's own words.
        const yauzl = (await import('yauzl')).default;
        text = await new Promise<string>((resolve, reject) => {
          yauzl.fromBuffer(body, { lazyEntries: true }, (err, zip) => {
            if (err || !zip) return reject(err);
            zip.on('entry', (entry: import('yauzl').Entry) => {
              if (!entry.fileName.endsWith('/book.json')) return zip.readEntry();
              zip.openReadStream(entry, (e, stream) => {
                if (e || !stream) return reject(e);
                const chunks: Buffer[] = [];
                stream.on('data', (c: Buffer) => chunks.push(c));
                stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
              });
            });
            zip.readEntry();
          });
        });
      }
      const doc = JSON.parse(text);
      const media = doc.submissions.find((s: { id: string }) => s.id === submissionId).media;
      const audio = media.find((m: { id: string }) => m.id === audioId);
      const video = media.find((m: { id: string }) => m.id === videoId);
      expect(audio.transcript).toEqual({ status: 'completed', language: 'en', text: CORRECTED, edited: true, segments: [{ start: 0, end: 2, text: 'The drive to the lake, with everyone singing.' }] });
      expect(video.transcript).toMatchObject({ status: 'completed', language: 'en', text: 'The drive to the lake, with everyone singing.', edited: false });
    }
  });

  it("includes the transcripts of the user's recordings in their account export", async () => {
    const res = await t.post('/api/v1/me/export/', undefined, { token: owner.token });
    expect(res.status).toBe(202);
    const job = await eventually(
      () => t.get(`/api/v1/me/export/${res.body.id}/`, { token: owner.token }),
      (r) => r.status === 200 && (r.body.status === 'complete' || r.body.status === 'failed'),
      120_000,
    );
    expect(job.body.status).toBe('complete');
    const file = await fetchSigned(t, job.body.download_url);
    const doc = JSON.parse(gunzipSync(file.body).toString('utf8'));
    expect(doc.transcriptions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ media_id: audioId, submission_id: submissionId, book_slug: slug, status: 'completed', text: CORRECTED, edited: true }),
        expect.objectContaining({ media_id: videoId, status: 'completed', edited: false }),
      ]),
    );
  });
});
