import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the media upload route and the contributor form share about reading a
 * multipart body as a stream (@fastify/multipart): its failures sorted into
 * kinds, each caller saying them in its own words; the declared length
 * checked before a byte is read; and the rest of a refused body dropped.
 */

export type MultipartFailure =
  | 'too_many_files'
  | 'file_too_large'
  /** More parts or fields than the limits allow. */
  | 'too_many_parts'
  | 'field_too_large'
  /** Cut off, or not multipart framing at all. */
  | 'malformed'
  /** A boundary longer than the parser takes (RFC 2046 allows 70 characters; the parser at most 252). */
  | 'boundary_too_long'
  /** The Content-Type is not multipart/form-data. */
  | 'not_multipart';

const MALFORMED_MESSAGE =
  /Unexpected end of (form|multipart data)|Malformed part header|Boundary not found|Boundary required|Part terminated early|Unsupported Content-Type|Missing Content-Type|needle cannot be an empty/i;
/** busboy builds its boundary search from `\r\n--<boundary>` and refuses a needle over 256 bytes, before reading a byte. */
const BOUNDARY_TOO_LONG_MESSAGE = /needle cannot have a length bigger than/i;

/** The longest boundary the parser takes (its search needle is the boundary and 4 bytes more, at most 256). */
export const MAX_BOUNDARY_LENGTH = 252;

/** The kind of a multipart parser failure; null when `err` is not one (it passes on unchanged). */
export function multipartFailureOf(err: unknown): MultipartFailure | null {
  switch ((err as { code?: string } | null)?.code) {
    case 'FST_FILES_LIMIT':
      return 'too_many_files';
    case 'FST_REQ_FILE_TOO_LARGE':
      return 'file_too_large';
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'too_many_parts';
    case 'FST_REQ_FIELD_TOO_LARGE':
    case 'FST_FIELD_TOO_LARGE':
      return 'field_too_large';
    case 'FST_PROTO_VIOLATION':
    case 'FST_MP_PREMATURE_CLOSE':
      return 'malformed';
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return 'not_multipart';
  }
  // busboy's own errors carry no code, only these messages (some thrown while it is built, from the headers alone).
  if (err instanceof Error && BOUNDARY_TOO_LONG_MESSAGE.test(err.message)) return 'boundary_too_long';
  if (err instanceof Error && MALFORMED_MESSAGE.test(err.message)) return 'malformed';
  return null;
}

/** The request's declared Content-Length when it is over `ceiling` (refused before reading), else undefined. */
export function declaredLengthOver(request: FastifyRequest, ceiling: number): number | undefined {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared > ceiling ? declared : undefined;
}

/**
 * After a refusal the rest of the body is not wanted: the client is told
 * the connection closes, and what it still sends is read and dropped until
 * then, so it sees the answer rather than a reset mid-upload.
 */
export function dropRestOfBody(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  request.raw.unpipe();
  request.raw.resume();
}

/** Reads a part that is not taken to its end, so the parser moves on to the next. */
export async function drainPart(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _chunk of stream) {
    /* dropped */
  }
}
