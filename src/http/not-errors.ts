/**
 * Two answers carry the envelope's shape `{code, message, details,
 * request_id}` but are not errors, so they are not in the error table
 * (src/errors.ts, 4xx and 5xx only):
 * - `308 moved`: a redirect to the path with its trailing slash (the
 *   method and body kept), answered by the router's fallback;
 * - `202 deletion_queued`: a deletion accepted and still running, the
 *   success of DELETE /books/{slug}/ and POST /me/delete/ while off-site
 *   backup erasure is not confirmed (each route documents it as its 202).
 * docs/errors.md lists them after the error codes (NOT_ERRORS).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { setRetryAfter } from './response-headers.js';

export const NOT_ERRORS = {
  moved: {
    status: 308,
    meaning: 'Not an error: the path lacks its trailing slash; Location is the same path with it (308, the method and body kept).',
    action: 'Follow Location, and write paths with their trailing slash.',
  },
  deletion_queued: {
    status: 202,
    meaning: 'Not an error: a deletion was accepted (202) and runs in the background; off-site backup erasure is not confirmed yet.',
    action: 'Retry with the same Idempotency-Key after Retry-After; the resource answers 404 once the deletion is done.',
  },
} as const;

export type NotErrorCode = keyof typeof NOT_ERRORS;

/** The 308's body, in the document as components.schemas.Moved, the body of every operation's 308 (the router answers it). */
export const MovedBody = Type.Object(
  {
    code: Type.Literal('moved'),
    message: Type.String({ description: 'For people; may change' }),
    details: Type.Null(),
    request_id: Type.String(),
  },
  { title: 'Moved', description: `${NOT_ERRORS.moved.meaning} ${NOT_ERRORS.moved.action}` },
);

function body(request: FastifyRequest, code: NotErrorCode, message: string, details: Record<string, unknown> | null) {
  return { code, message, details, request_id: String(request.id) };
}

/** 308 to the slashed path, its query kept. */
export function redirectToSlashed(request: FastifyRequest, reply: FastifyReply, path: string, query: string) {
  return reply
    .code(NOT_ERRORS.moved.status)
    .header('location', `${path}/${query ? `?${query}` : ''}`)
    .send(body(request, 'moved', `This resource lives at ${path}/ (with the trailing slash).`, null));
}

/**
 * 202 deletion_queued with Retry-After. Marked on the request as its code,
 * so the idempotency plugin does not keep it as the key's answer (the
 * retry runs again) and the access log names it.
 */
export function deletionQueued(request: FastifyRequest, reply: FastifyReply, retryAfterSeconds: number, message: string) {
  request.errorCode = 'deletion_queued';
  reply.code(NOT_ERRORS.deletion_queued.status);
  // The route declares `config.retryAfter: [202]`.
  return setRetryAfter(reply, retryAfterSeconds).send(body(request, 'deletion_queued', message, { retry_after_seconds: retryAfterSeconds }));
}
