import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db/client.js';
import { createIdempotencyStore } from './services/idempotency/idempotency-store.js';
import { createRateLimiter } from './services/rate-limit/rate-limiter.js';

const EVERY_MS = 10 * 60 * 1000;
const LONGEST_RATE_WINDOW_SECONDS = 2 * 24 * 3600;

/** Periodic clean-up: expired idempotency keys and rate-limit hits that left every window. */
export function createHousekeeping(deps: { db: Db; log: FastifyBaseLogger }) {
  const idempotency = createIdempotencyStore(deps);
  const limiter = createRateLimiter(deps);
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
