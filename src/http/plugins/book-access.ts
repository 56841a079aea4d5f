import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.js';
import { errors } from '../../errors.js';
import { assertIfMatch } from '../etag.js';
import { assertGraceAndPlan, assertRole, assertVisible, type BookAccessState } from '../../services/books/book-access.js';
import { findBookContext } from '../../services/books/book-repository.js';
import type { BookContext } from '../../services/books/book-types.js';
import { SLUG_RE } from '../../services/books/slug.js';

export function accessState(ctx: BookContext): BookAccessState {
  return { role: ctx.role, isPublic: ctx.book.is_public, inGracePeriod: ctx.inGracePeriod, plan: { features: ctx.planFeatures } };
}

/**
 * Book routes declare `config.book`; these two hooks are the one place the
 * rules are enforced, so every route added later inherits them: visibility
 * and role right after authentication (before idempotency, per the contract's
 * order), grace period and plan gates after schema validation.
 */
export function createBookAccessHooks(deps: { db: Db; replayIfStored: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean> }) {
  async function loadBook(request: FastifyRequest, reply: FastifyReply) {
    request.book = null;
    const action = request.routeOptions.config.book;
    if (!action) return;
    const slug = (request.params as { slug?: string }).slug ?? '';
    const ctx = SLUG_RE.test(slug) ? await findBookContext(deps.db, slug, request.auth?.user.id ?? null) : undefined;
    if (!ctx) {
      // The body is not parsed yet, so only a body-less request (DELETE) can be matched to its stored answer here.
      if (request.method === 'DELETE' && (await deps.replayIfStored(request, reply))) return reply;
      throw errors.notFound('book');
    }
    const state = accessState(ctx);
    if (action === 'visible') assertVisible(state);
    else assertRole(state, action);
    request.book = ctx;
  }

  async function checkGraceAndPlan(request: FastifyRequest, _reply: FastifyReply) {
    const { book: action, currentEtag } = request.routeOptions.config;
    if (!action || action === 'visible' || !request.book) return;
    try {
      assertGraceAndPlan(accessState(request.book), action);
    } catch (gate) {
      // Preconditions come before these gates: a stale If-Match is 412 even in a grace period.
      const ifMatch = request.headers['if-match'];
      const current = ifMatch !== undefined && currentEtag ? await currentEtag(request) : undefined;
      if (current !== undefined) assertIfMatch(ifMatch, current);
      throw gate;
    }
  }

  return { loadBook, checkGraceAndPlan };
}
