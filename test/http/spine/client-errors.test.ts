/**
 * Errors Node's HTTP parser raises before a request reaches routing (headers
 * too large, a URL too long, a bad Content-Length) answer the same envelope
 * and X-Request-Id as every other error, over a real socket.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { parseResponse, rawExchange, type RawResponse } from './raw-socket.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as { port: number }).port;
});

/** Sends one raw request; the server must answer and hang up. */
async function answerTo(request: string): Promise<RawResponse> {
  const { received, closedAfterMs } = await rawExchange(port, [request], 5000);
  expect(closedAfterMs, 'the server closes the connection').not.toBeNull();
  return parseResponse(received);
}

function expectEnvelope(res: RawResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers.connection).toBe('close');
  expect(Object.keys(res.body).sort()).toEqual(['code', 'details', 'message', 'request_id']);
  expect(res.body).toMatchObject({ code, details: null });
  expect(res.body.message).toEqual(expect.any(String));
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}

describe('errors before routing answer the envelope with X-Request-Id', () => {
  it('a 20 KB header is 431 request_header_fields_too_large', async () => {
    const res = await answerTo(`GET /api/v1/auth/me/ HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expectEnvelope(res, 431, 'request_header_fields_too_large');
  });

  it('a 100 KB URL is 414 uri_too_long (the URL alone is over the header limit)', async () => {
    const res = await answerTo(`GET /api/v1/books/${'a'.repeat(100 * 1024)}/ HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expectEnvelope(res, 414, 'uri_too_long');
  });

  it('a URL under the limit whose headers take the request over it is 431', async () => {
    // Node counts the request line toward its 16 KiB header limit.
    const res = await answerTo(`GET /api/v1/books/${'a'.repeat(10 * 1024)}/ HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'b'.repeat(10 * 1024)}\r\n\r\n`);
    expectEnvelope(res, 431, 'request_header_fields_too_large');
  });

  it('Content-Length: abc is 400 bad_request', async () => {
    const res = await answerTo('POST /api/v1/books/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}');
    expectEnvelope(res, 400, 'bad_request');
  });

  it('Content-Length twice with different values is 400 bad_request', async () => {
    const res = await answerTo('POST /api/v1/books/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}');
    expectEnvelope(res, 400, 'bad_request');
  });

  it('a request line that is not HTTP is 400 bad_request', async () => {
    const res = await answerTo('HELLO THERE\r\n\r\n');
    expectEnvelope(res, 400, 'bad_request');
  });

  it('a fresh request id each time', async () => {
    const a = await answerTo('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: x\r\n\r\n');
    const b = await answerTo('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: x\r\n\r\n');
    expect(a.body.request_id).not.toBe(b.body.request_id);
  });

  it('the server keeps answering ordinary requests afterwards', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/me/`);
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
  });
});
