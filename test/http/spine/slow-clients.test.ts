/**
 * A slow client cannot hold a connection: headers trickled past
 * HTTP_HEADERS_TIMEOUT_MS, a body trickled past HTTP_REQUEST_TIMEOUT_MS and
 * an idle keep-alive connection past HTTP_KEEP_ALIVE_TIMEOUT_MS are cut off,
 * over a real socket, with small limits so the test stays quick.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import { parseResponse, rawExchange, type Step } from './raw-socket.js';

const HEADERS_MS = 500;
const REQUEST_MS = 1000;
const KEEP_ALIVE_MS = 500;
/** How late a cut may come: Node sweeps for timed-out connections every quarter of the header limit here. */
const SLACK_MS = 1500;

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await buildTestApp({
    env: { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS), HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS) },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as { port: number }).port;
});

/** `count` pieces, each after a pause: longer in total than any limit here. */
function trickle(pieces: string[], everyMs: number): Step[] {
  return pieces.flatMap((p) => [{ waitMs: everyMs }, p]);
}

function expectTimeoutEnvelope(received: Buffer) {
  const res = parseResponse(received);
  expect(res.status).toBe(408);
  expect(res.body).toMatchObject({ code: 'request_timeout', details: null });
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}

describe('slow clients are cut off', () => {
  it('headers trickled past the header limit: 408 request_timeout, then the connection closes', async () => {
    const headerLines = Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: a\r\n`);
    const { received, closedAfterMs } = await rawExchange(port, ['GET /api/v1/auth/me/ HTTP/1.1\r\nHost: localhost\r\n', ...trickle(headerLines, 100)]);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(closedAfterMs!).toBeLessThan(HEADERS_MS + SLACK_MS);
    expectTimeoutEnvelope(received);
  });

  it('a connection that sends nothing at all is closed', async () => {
    const { closedAfterMs } = await rawExchange(port, [{ waitMs: 10_000 }]);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeLessThan(REQUEST_MS + SLACK_MS);
  });

  it('a body trickled past the request limit: 408 request_timeout, the connection closes, nothing changes', async () => {
    const u = await newUser(t, { firstName: 'Before' });
    const body = JSON.stringify({ first_name: 'After' });
    const head =
      `PATCH /api/v1/me/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${u.token}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { received, closedAfterMs } = await rawExchange(port, [head, ...trickle(body.split(''), 150)]);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(closedAfterMs!).toBeLessThan(REQUEST_MS + SLACK_MS);
    expectTimeoutEnvelope(received);
    expect((await t.get('/api/v1/me/', { token: u.token })).body.first_name).toBe('Before');
  });

  it('a body sent slowly but within the limits is served', async () => {
    const u = await newUser(t, { firstName: 'Before' });
    const body = JSON.stringify({ first_name: 'After' });
    const head =
      `PATCH /api/v1/me/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${u.token}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const { received } = await rawExchange(port, [head, ...trickle([body.slice(0, 10), body.slice(10)], 200)]);
    const res = parseResponse(received);
    expect(res.status).toBe(200);
    expect(res.body.first_name).toBe('After');
  });

  it('an idle keep-alive connection is closed after the keep-alive limit', async () => {
    const { received, closedAfterMs } = await rawExchange(port, ['GET /api/v1/auth/me/ HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n']);
    expect(parseResponse(received).status).toBe(401);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    expect(closedAfterMs!).toBeLessThan(KEEP_ALIVE_MS + SLACK_MS);
  });
});
