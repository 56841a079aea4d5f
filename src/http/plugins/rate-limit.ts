import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Config } from '../../config/config.js';
import { errors } from '../../errors.js';
import type { RateLimiter } from '../../services/rate-limit/rate-limiter.js';
import type { PluginHeaders } from '../header-declarations.js';

/** What the plugin adds to every route with `config.rateLimit`: 429 rate_limited, with Retry-After. */
export const RATE_LIMIT_HEADERS: PluginHeaders = { plugin: 'rate limit', wraps: (route) => Boolean(route.config?.rateLimit), headers: { retryAfter: [429] } };

/**
 * The rate limit of a route with `config.rateLimit`, counted in a short
 * transaction of its own. On a route with an Idempotency-Key the claim calls
 * it, after a replay has been answered (replays never count) and before the
 * request's own transaction opens, so no request ever holds one connection
 * while it waits for another. A 429 is not stored: the same key may retry
 * after Retry-After. Other routes run it as a preValidation hook.
 */
export function createRateLimit(deps: { config: Config; limiter: RateLimiter }) {
  async function apply(request: FastifyRequest, reply: FastifyReply) {
    const rl = request.routeOptions.config.rateLimit;
    if (!rl) return;
    const limit = rl.limit(deps.config);
    const result = rl.check ? await rl.check(request) : await deps.limiter.hit(`${rl.name}:${rl.key(request)}`, limit, rl.windowSeconds(deps.config));
    reply.header('x-ratelimit-limit', String(limit));
    reply.header('x-ratelimit-remaining', String(result.remaining));
    if (!result.allowed) throw errors.rateLimited(result.retryAfterSeconds, { limit, window_seconds: rl.windowSeconds(deps.config) });
  }

  /** The hook, for rate-limited routes the idempotency claim does not cover (a callback hook: most routes pass straight through). */
  function hook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (reply.sent || request.rateLimited || !request.routeOptions.config.rateLimit) return done();
    apply(request, reply).then(() => done(), done);
  }

  return { apply, hook };
}
