import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import { errors } from '../../errors.js';
import type { RateLimiter } from '../../services/rate-limit/rate-limiter.js';

/**
 * preValidation hook for routes with `config.rateLimit`. It runs after the
 * idempotency claim, so a replay is answered before it and never counts; a
 * 429 is not stored, so the same key may retry after Retry-After.
 */
export function createRateLimitHook(deps: { config: Config; limiter: RateLimiter }) {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply) {
    const rl = request.routeOptions.config.rateLimit;
    if (!rl || reply.sent) return;
    const limit = rl.limit(deps.config);
    const result = await deps.limiter.hit(`${rl.name}:${rl.key(request)}`, limit, rl.windowSeconds(deps.config));
    reply.header('x-ratelimit-limit', String(limit));
    reply.header('x-ratelimit-remaining', String(result.remaining));
    if (!result.allowed) throw errors.rateLimited(result.retryAfterSeconds, { limit, window_seconds: rl.windowSeconds(deps.config) });
  };
}
