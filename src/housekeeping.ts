import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services/index.js';

const EVERY_MS = 10 * 60 * 1000;
const LONGEST_RATE_WINDOW_SECONDS = 2 * 24 * 3600;

/**
 * An upload's object is recorded as pending until its row commits; one still
 * pending this long after the longest request could run belonged to a
 * request that died, and is swept.
 */
export const PENDING_OBJECT_GRACE_SECONDS = 3600;
/** Media still `processing` this long after its last change lost its worker for good. */
export const STUCK_PROCESSING_SECONDS = 3 * 3600;

/** Periodic clean-up: expired idempotency keys, rate-limit hits that left every window, and uploads whose request died. */
export function createHousekeeping(deps: {
  services: Pick<Services, 'idempotency' | 'rateLimiter' | 'media' | 'mediaProcessing' | 'invitations' | 'mailStreams'>;
  log: FastifyBaseLogger;
  /** The longest a request may run (HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
}) {
  const { idempotency, rateLimiter: limiter, media, invitations, mailStreams } = deps.services;
  let timer: NodeJS.Timeout | undefined;
  let first: NodeJS.Timeout | undefined;
  const run = async () => {
    try {
      const purged = await idempotency.purgeExpired();
      await limiter.prune(LONGEST_RATE_WINDOW_SECONDS);
      const swept = await media.sweepPendingObjects(Math.ceil(deps.requestTimeoutMs / 1000) + PENDING_OBJECT_GRACE_SECONDS);
      if (swept) deps.log.info({ swept }, 'objects of interrupted uploads removed');
      // Longer than every attempt of the media.process job could have run (5 attempts of at most 15 minutes, with backoff).
      const stuck = await deps.services.mediaProcessing.failStuck(STUCK_PROCESSING_SECONDS);
      if (stuck) deps.log.warn({ stuck }, 'media processing that never finished marked failed');
      if (purged) deps.log.info({ purged }, 'expired idempotency keys removed');
      // Pending invitations past their 14 days (reads already show them expired; this writes it, for syncing clients).
      const expired = await invitations.expireStale();
      if (expired) deps.log.info({ expired }, 'invitations expired');
      // Each UTC day's digest and activity reminders, queued by whichever process notices the day first.
      const daily = await mailStreams.scheduleDaily();
      if (daily.length) deps.log.info({ jobs: daily }, 'daily jobs queued');
    } catch (err) {
      deps.log.warn({ err }, 'housekeeping failed; will retry');
    }
  };
  return {
    run,
    /** Runs now and every 10 minutes; with `firstRunAfterMs`, the first run waits that long. */
    start(options: { firstRunAfterMs?: number } = {}) {
      if (options.firstRunAfterMs) {
        first = setTimeout(run, options.firstRunAfterMs);
        first.unref();
      } else void run();
      timer = setInterval(run, EVERY_MS);
      timer.unref();
    },
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
