import type { ConnectionError, FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';

const REQUEST_LINE_START = /^[A-Z]+ /;

/**
 * Node counts the request line toward its header limit. When the chunk that
 * overflowed starts a request and holds no line break up to the overflow,
 * the URL alone is too long (a URL trickled over several chunks stays 431).
 */
function isUriOverflow(err: ConnectionError): boolean {
  // A Buffer at run time, whatever Fastify's type says.
  const packet: unknown = err.rawPacket;
  if (!Buffer.isBuffer(packet) || !REQUEST_LINE_START.test(packet.subarray(0, 16).toString('latin1'))) return false;
  return !packet.subarray(0, err.bytesParsed ?? packet.length).includes('\r\n');
}

function classify(err: ConnectionError): { code: ErrorCode; message: string } {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'The request was not received in time.' };
    case 'HPE_HEADER_OVERFLOW':
      return isUriOverflow(err)
        ? { code: 'uri_too_long', message: 'The request URL is too long.' }
        : { code: 'request_header_fields_too_large', message: 'The request headers are too large.' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'The request body is too large.' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'bad_request', message: 'The Content-Length header is invalid.' };
    default:
      return { code: 'bad_request', message: 'The request is malformed.' };
  }
}

/**
 * Fastify's clientErrorHandler: errors Node raises before a request reaches
 * routing (bad framing, oversized headers, slow clients) answer the same
 * envelope and X-Request-Id as every other error, then the connection closes,
 * since the parser cannot find where the next request would start.
 */
export function answerClientError(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message } = classify(err);
  const requestId = answerOnSocket(socket, code, message);
  this.log.info({ status: ERROR_STATUS[code], code, request_id: requestId, parser_error: err.code }, 'client connection error answered');
}

/**
 * A socket silent for HTTP_REQUEST_TIMEOUT_MS (Fastify's connectionTimeout)
 * while a request on it is still arriving, e.g. an upload that stalled: 408
 * request_timeout with the envelope, then the connection closes. Without a
 * request under way (an idle keep-alive socket) it only closes. Node would
 * otherwise drop the socket without a word, often just before its own
 * request-timeout sweep would have answered.
 */
export function answerStalledSocket(log: FastifyInstance['log'], socket: Socket): void {
  if (socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { req?: { complete?: boolean } } | null })._httpMessage;
  // No request under way, or one that has arrived whole (its handler is slow): closed, as Node would.
  if (!inFlight || inFlight.req?.complete !== false) {
    socket.destroy();
    return;
  }
  const requestId = answerOnSocket(socket, 'request_timeout', 'The request was not received in time: nothing arrived for too long.');
  log.info({ status: ERROR_STATUS.request_timeout, code: 'request_timeout', request_id: requestId }, 'stalled request answered');
}

/** Writes the envelope straight onto the socket and closes it; answers the request id it carries. */
function answerOnSocket(socket: Socket, code: ErrorCode, message: string): string {
  const status = ERROR_STATUS[code];
  const requestId = randomUUID();
  // Never write into a response already under way (a body timing out after the route answered would be corrupted).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return requestId;
  }
  const body = JSON.stringify({ code, message, details: null, request_id: requestId });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
  ].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  return requestId;
}
