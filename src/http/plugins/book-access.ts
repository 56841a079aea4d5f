import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError, errors } from '../../errors.js';
import type { BookAccess } from '../../services/books/book-access.js';

/**
 * onRequest hook for routes that declare `config.book`: answers 404 (not
 * visible) and 403 (role) right after authentication, ahead of idempotency,
 * rate limits and schema validation, as the contract orders them. The
 * service checks the same action again (with the precondition and the
 * grace-period and plan gates) inside its own transaction; what this read
 * is remembered for the request, so a read costs one query.
 */
export function createBookAccessHook(deps: {
  access: BookAccess;
  /** Who wrote a submission of the book (undefined when there is none): for `config.ownRow`. */
  submissionAuthor: (bookId: string, id: string) => Promise<string | null | undefined>;
  replayIfStored: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;
}) {
  // A callback hook: routes outside a book pass straight through. Done is not called when the hook has answered.
  return function checkBookAccess(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const action = request.routeOptions.config.book;
    if (!action) return done();
    check(request, reply, action).then((answered) => {
      if (!answered) done();
    }, done);
  };

  /** True when it answered the request itself (a stored answer replayed). */
  async function check(request: FastifyRequest, reply: FastifyReply, action: NonNullable<FastifyRequest['routeOptions']['config']['book']>): Promise<boolean> {
    const { ownRow } = request.routeOptions.config;
    const params = request.params as { slug?: string; id?: string };
    const actor = request.auth?.user ?? null;
    try {
      const ctx = await deps.access.checkVisibleAndRole(actor, params.slug ?? '', action);
      // A contributor may act only on a row they wrote; another member's row is a matter of role, so 403 comes here, before idempotency.
      if (ownRow && ctx.role === 'contributor' && actor && params.id) {
        const author = await deps.submissionAuthor(ctx.book.id, params.id);
        if (author !== undefined && author !== actor.id) throw errors.insufficientRole('owner or admin');
      }
    } catch (err) {
      // A book deleted by this very request's first attempt is gone now; its retry still gets the stored answer.
      // The body is not parsed yet, so only a body-less request (DELETE) can be matched to it here.
      if (err instanceof AppError && err.code === 'not_found' && request.method === 'DELETE' && (await deps.replayIfStored(request, reply))) return true;
      throw err;
    }
    return false;
  }
}
