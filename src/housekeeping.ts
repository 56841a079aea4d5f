import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services/index.js';

const EVERY_MS = 10 * 60 * 1000;
const LONGEST_RATE_WINDOW_SECONDS = 2 * 24 * 3600;

/** Periodic clean-up: expired idempotency keys and rate-limit hits that left every window. */
export function createHousekeeping(deps: { services: Pick<Services, 'idempotency' | 'rateLimiter'>; log: FastifyBaseLogger }) {
  const { idempotency, rateLimiter: limiter } = deps.services;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    try {
      const purged = await idempotency.purgeExpired();
      await limiter.prune(LONGEST_RATE_WINDOW_SECONDS);
      if (purged) deps.log.info({ purged }, 'expired idempotency keys removed');
    } catch (err) {
      deps.log.warn({ err }, 'housekeeping failed; will retry');
    }
  };
  return {
    run,
    start() {
      void run();
      timer = setInterval(run, EVERY_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
