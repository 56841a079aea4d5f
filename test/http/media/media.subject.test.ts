/**
 * Where a photo's subject is, found once when it is processed and stored with its media row (media.subject):
 * the faces of a real group photo (face-api's sample, read from its package), the attention point of a photo
 * without a face, a video's poster frame; and a run of processing killed half way and run again (as the job
 * is retried) leaves one stored subject, the same. On both databases (TEST_DATABASE_URL for PostgreSQL).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSubject, subjectOf, SUBJECT_VERSION, type SubjectFindings } from '../../../src/media-tools/focal-crop.js';
import { newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { buildMediaApp, processed, upload, type MediaTestApp } from './media-setup.js';

const faceSample = (i: number) => path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', `sample${i}.jpg`);

let t: MediaTestApp;
let owner: TestUser;
beforeAll(async () => {
  t = await buildMediaApp('local');
  owner = await newUser(t);
});
afterAll(() => t?.close());

async function storedSubject(mediaId: string): Promise<{ subject: SubjectFindings | null; type: string | null }> {
  const [row] = await t.db.query<{ subject: SubjectFindings | null; type: string | null }>(`SELECT subject, jsonb_typeof(subject) AS type FROM media WHERE id = $1`, [mediaId]);
  return row!;
}

async function uploadProcessed(bytes: Buffer, filename: string, plan = 'free') {
  const book = await newBook(t, owner, { plan });
  const sub = await newSubmission(t, book.slug, owner);
  const res = await upload(t, owner, book.slug, sub.id, bytes, { filename, contentType: 'application/octet-stream' });
  expect(res.status, res.text).toBe(201);
  const done = await processed(t, owner, res.headers.location as string);
  expect(done.body.processing_status).toBe('complete');
  return res.body.id as string;
}

describe('media processing finds where a photo’s subject is, once', () => {
  it('stores the faces of a group photo (fractions of the photo, largest first): the subject a printed book crops around', async () => {
    const id = await uploadProcessed(await readFile(faceSample(3)), 'group.jpg');
    const { subject, type } = await storedSubject(id);
    expect(type).toBe('object');
    expect(subject!.version).toBe(SUBJECT_VERSION);
    expect(subject!.faces).toHaveLength(3);
    expect(subject!.attention).toBeNull();
    for (const f of subject!.faces) {
      for (const v of [f.x, f.y, f.w, f.h]) expect(v).toBeGreaterThanOrEqual(0);
      expect(f.x + f.w).toBeLessThanOrEqual(1.0001);
      expect(f.y + f.h).toBeLessThanOrEqual(1.0001);
      expect(f.score).toBeGreaterThan(0.45);
    }
    const areas = subject!.faces.map((f) => f.w * f.h);
    expect(areas).toEqual([...areas].sort((a, b) => b - a));
    // The same subject as looking at the photo now would find.
    const now = await detectSubject(faceSample(3));
    const fromStored = subjectOf(subject!);
    expect(fromStored.by).toBe('faces');
    expect(fromStored.focal.x).toBeCloseTo(now.focal.x, 5);
    expect(fromStored.focal.y).toBeCloseTo(now.focal.y, 5);
  });

  it('stores the attention point of a photo without a face', async () => {
    const id = await uploadProcessed(await readFixture('jpeg'), 'plain.jpg');
    const { subject } = await storedSubject(id);
    expect(subject).toMatchObject({ version: SUBJECT_VERSION, faces: [], attention: { x: expect.any(Number), y: expect.any(Number) } });
    expect(subject!.attention!.x).toBeGreaterThanOrEqual(0);
    expect(subject!.attention!.x).toBeLessThanOrEqual(1);
  });

  it('stores the subject of a video’s poster frame (the picture a book prints for it)', async () => {
    const id = await uploadProcessed(await readFixture('mp4'), 'clip.mp4', 'premium');
    const { subject } = await storedSubject(id);
    expect(subject).toMatchObject({ version: SUBJECT_VERSION, faces: expect.any(Array) });
  });

  it('a run killed half way and run again (the job retried) leaves one stored subject, the same', async () => {
    const id = await uploadProcessed(await readFile(faceSample(1)), 'one.jpg');
    const first = await storedSubject(id);
    expect(first.subject!.faces.length).toBeGreaterThan(0);
    // What a run killed before it recorded leaves: the row still processing; the retried job runs it again.
    await t.db.query(`UPDATE media SET processing_status = 'processing' WHERE id = $1`, [id]);
    await t.services.mediaProcessing.process(id, { signal: new AbortController().signal, lastAttempt: false });
    const again = await storedSubject(id);
    expect(again.type).toBe('object');
    expect(again.subject).toEqual(first.subject);
    const done = await t.db.query<{ processing_status: string }>(`SELECT processing_status FROM media WHERE id = $1`, [id]);
    expect(done[0]!.processing_status).toBe('complete');
  });
});
