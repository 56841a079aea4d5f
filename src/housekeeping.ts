import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services/index.js';

const LONGEST_RATE_WINDOW_SECONDS = 2 * 24 * 3600;

/**
 * An upload's object is recorded as pending until its row commits; one still
 * pending this long after the longest request could run belonged to a
 * request that died, and is swept.
 */
export const PENDING_OBJECT_GRACE_SECONDS = 3600;
/** Media still `processing` this long after its last change lost its worker for good. */
export const STUCK_PROCESSING_SECONDS = 3 * 3600;
/** A transcription still `processing` this long lost its worker for good (every run of its job is over by then). */
export const STUCK_TRANSCRIPTION_SECONDS = 12 * 3600;

/**
 * Periodic clean-up: expired idempotency keys, rate-limit hits that left
 * every window, uploads whose request died, media that never finished,
 * stale invitations, expired sign-ups, and paid books' billing (billingCheckout.settle). Run
 * by the `housekeeping.run` job, which a schedule queues every 10 minutes on
 * one worker (see jobs/job-catalog.ts).
 */
export function createHousekeeping(deps: {
  services: Pick<Services, 'idempotency' | 'rateLimiter' | 'media' | 'webUploads' | 'mediaProcessing' | 'invitations' | 'billingCheckout' | 'events' | 'users'> &
    Partial<Pick<Services, 'transcriptions'>>;
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  /** The longest a request may run (HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
}) {
  const { idempotency, rateLimiter: limiter, media, mediaProcessing, invitations, billingCheckout, users } = deps.services;
  return {
    /** One pass; a failure is the job's, which its next period runs again. */
    async run(): Promise<void> {
      const purged = await idempotency.purgeExpired();
      if (purged) deps.log.info({ purged }, 'expired idempotency keys removed');
      await limiter.prune(LONGEST_RATE_WINDOW_SECONDS);
      const swept = await media.sweepPendingObjects(Math.ceil(deps.requestTimeoutMs / 1000) + PENDING_OBJECT_GRACE_SECONDS);
      if (swept) deps.log.info({ swept }, 'objects of interrupted uploads removed');
      // Resumable uploads from the web form left unfinished past their expiry (the memory's words stay).
      const abandoned = await deps.services.webUploads.sweep();
      if (abandoned) deps.log.info({ abandoned }, 'abandoned resumable uploads removed');
      // Longer than every attempt of the media.process job could have run (5 attempts of at most 15 minutes, with backoff).
      const stuck = await mediaProcessing.failStuck(STUCK_PROCESSING_SECONDS);
      if (stuck) deps.log.warn({ stuck }, 'media processing that never finished marked failed');
      const stuckTranscriptions = (await deps.services.transcriptions?.failStuck(STUCK_TRANSCRIPTION_SECONDS)) ?? 0;
      if (stuckTranscriptions) deps.log.warn({ stuck: stuckTranscriptions }, 'transcriptions that never finished marked failed');
      // Pending invitations past their 14 days (reads already show them expired; this writes it, for syncing clients).
      const expired = await invitations.expireStale();
      if (expired) deps.log.info({ expired }, 'invitations expired');
      // Sign-ups whose confirmation link expired unused.
      const signUps = await users.pruneSignUps();
      if (signUps) deps.log.info({ signUps }, 'unconfirmed sign-ups removed');
      // Paid books: subscriptions tied to the books their slots made; canceled ones past their period moved to the default plan.
      const billing = await billingCheckout.settle();
      if (billing.bound || billing.released) deps.log.info(billing, 'billing settled');
      const events = await deps.services.events.removeExpired();
      if (events) deps.log.info({ events }, 'events past their 30 days removed');
    },
  };
}
