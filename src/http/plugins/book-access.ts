import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { BookAccess } from '../../services/books/book-access.js';

/**
 * onRequest hook for routes that declare `config.book`: answers 404 (not
 * visible) and 403 (role) right after authentication, ahead of idempotency,
 * rate limits and schema validation, as the contract orders them. The
 * service checks the same action again (with the precondition and the
 * grace-period and plan gates) inside its own transaction; what this read
 * is remembered for the request, so a read costs one query.
 */
export function createBookAccessHook(deps: { access: BookAccess; replayIfStored: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean> }) {
  return async function checkBookAccess(request: FastifyRequest, reply: FastifyReply) {
    const action = request.routeOptions.config.book;
    if (!action) return;
    const slug = (request.params as { slug?: string }).slug ?? '';
    try {
      await deps.access.checkVisibleAndRole(request.auth?.user ?? null, slug, action);
    } catch (err) {
      // A book deleted by this very request's first attempt is gone now; its retry still gets the stored answer.
      // The body is not parsed yet, so only a body-less request (DELETE) can be matched to it here.
      if (err instanceof AppError && err.code === 'not_found' && request.method === 'DELETE' && (await deps.replayIfStored(request, reply))) return reply;
      throw err;
    }
  };
}
