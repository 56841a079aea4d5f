/**
 * An upload that stalls half way (the client stops sending and keeps the
 * connection open) is answered 408 request_timeout with the error envelope
 * once HTTP_REQUEST_TIMEOUT_MS is over, then the connection closes; nothing
 * stays in the store or the database. Over a real socket, with a small limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { fileUpload } from '../../helpers/multipart.js';
import { parseResponse, rawExchange } from '../spine/raw-socket.js';
import { buildMediaApp, mediaPath, type MediaTestApp } from './media-setup.js';

const REQUEST_MS = 1500;
const SLACK_MS = 2000;

let t: MediaTestApp;
let port: number;
beforeAll(async () => {
  t = await buildMediaApp('local', { worker: false, env: { HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS) } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(() => t?.close());

describe('a stalled upload', () => {
  it('408 request_timeout with the envelope, then the connection closes; nothing kept', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const sub = await newSubmission(t, slug, owner);
    const body = fileUpload(await readFixture('jpeg'), { filename: 'stalls.jpg', contentType: 'image/jpeg' });
    const payload = Buffer.isBuffer(body.payload) ? body.payload : Buffer.from(body.payload);
    const head =
      `POST ${mediaPath(slug, sub.id)} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${owner.token}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\n` +
      `Content-Type: ${body.contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`;
    // Half the file, then nothing: the connection stays open until the server ends it.
    const { received, closedAfterMs } = await rawExchange(port, [head, payload.subarray(0, Math.floor(payload.length / 2)).toString('latin1'), { waitMs: 15_000 }]);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeLessThan(REQUEST_MS + SLACK_MS);
    const res = parseResponse(received);
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ code: 'request_timeout' });
    expect(typeof res.body.message).toBe('string');
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM media WHERE submission_id = $1`, [sub.id]);
    expect(n).toBe(0);
    expect((await t.storedKeys()).filter((k) => k.startsWith('media/'))).toEqual([]);
  }, 30_000);
});
