import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Queryable } from '../../db/client.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { tracedDelivery } from './delivery-span.js';
import { endpointDisabledMail } from './endpoint-mail.js';
import { findUserById } from '../users/user-service.js';
import { claimDeliveries, disableEndpoint, failDelivery, failPendingOfEndpoint, recordAttempt, type ClaimedDelivery, type EndpointPart } from './delivery-repository.js';
import { signPayload, type SecretBox } from './signing.js';
import type { UrlGuard } from './url-guard.js';
import { webhookAttempts } from '../../metrics/metrics.js';

/** Waits before each retry after a failed attempt (about 28 h in all); after the last the endpoint is disabled. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** A delivery is a 2xx within this long. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Deliveries in flight to one endpoint at once (different resources; one resource's events go one at a time). */
export const ENDPOINT_CONCURRENCY = 4;
/** The delivery log keeps this much of the receiver's answer. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface DispatcherOptions {
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** Deliveries in flight at once to one endpoint (across workers): a receiver that hangs holds at most this many places. */
  endpointConcurrency?: number;
  /** Consecutive attempts to one endpoint without any answer (timeout, connection refused) that open its circuit. */
  circuitThreshold?: number;
  /** How long an open circuit first rests the endpoint (doubling at each reopening, up to circuitMaxMs); then one delivery probes it. */
  circuitBaseMs?: number;
  circuitMaxMs?: number;
  pollIntervalMs?: number;
  timeoutMs?: number;
  /** How long a claimed delivery is held before another worker may take it (its worker died). More than the timeout. */
  leaseSeconds?: number;
  log?: Pick<FastifyBaseLogger, 'info' | 'warn'>;
}

type Claimed = ClaimedDelivery;

interface Outcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first RESPONSE_EXCERPT_BYTES of the answer's body (null when none came). */
  excerpt: string | null;
}

/** One endpoint's circuit, in this process: closed (failures counted), open until a time, or half-open (one probe at a time). */
interface Circuit {
  failures: number;
  opens: number;
  openUntil: number;
}

/**
 * Sends webhook deliveries: a dedicated queue on the webhook_deliveries rows
 * (each a pending (event, endpoint) pair written with its event). A worker
 * claims due rows with SKIP LOCKED and a lease, so each is sent by one
 * worker at a time and a worker killed mid-delivery leaves it to the next
 * once the lease lapses (at least once, same webhook-id).
 *
 * Order: the events of one resource (rows with one resource_key, numbered by
 * `sequence` in commit order) go to an endpoint one at a time, oldest first:
 * a row is not claimed while another of its resource is in flight to that
 * endpoint, nor while an older one is pending and was never tried or is due.
 * An older one waiting for its retry does not hold the later ones back (the
 * receiver tells them apart by the event's `sequence`).
 *
 * Isolation: at most `endpointConcurrency` deliveries are in flight to one
 * endpoint (counted from the leases, so across workers), and an endpoint that
 * gives no answer `circuitThreshold` times in a row rests (its circuit opens:
 * none of its deliveries is claimed, none of their attempts counted), then is
 * probed one delivery at a time until it answers. A receiver that hangs holds
 * a few places for the timeout; every other endpoint's deliveries go on. The
 * request that made the change only wrote rows; a finished delivery wakes the
 * dispatcher at once for the next event of its resource.
 */
export function createWebhookDispatcher(
  deps: { db: Db; config: { http: Pick<Config['http'], 'publicUrl'> }; queue: JobSender; guard: UrlGuard; secrets: SecretBox; clock: () => Date },
  options: DispatcherOptions = {},
) {
  const { db, guard, secrets } = deps;
  const { clock } = deps;
  const concurrency = options.concurrency ?? 32;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const leaseSeconds = options.leaseSeconds ?? Math.ceil(timeoutMs / 1000) + 45;
  const endpointConcurrency = options.endpointConcurrency ?? ENDPOINT_CONCURRENCY;
  const circuitThreshold = options.circuitThreshold ?? 3;
  const circuitBaseMs = options.circuitBaseMs ?? 5_000;
  const circuitMaxMs = options.circuitMaxMs ?? 60_000;
  const inFlight = new Set<Promise<void>>();
  const circuits = new Map<string, Circuit>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let ticking: Promise<void> | undefined;
  let wakeAgain = false;

  /** Endpoints resting (open circuit) and those probed one delivery at a time (half-open), now. */
  function circuitState(): { resting: string[]; probing: string[] } {
    const now = clock().getTime();
    const resting: string[] = [];
    const probing: string[] = [];
    for (const [id, c] of circuits) {
      if (c.opens === 0) continue;
      (c.openUntil > now ? resting : probing).push(id);
    }
    return { resting, probing };
  }

  /** An attempt's outcome on its endpoint's circuit: any answer closes it; no answer counts, and opens it at the threshold (a failed probe at once). */
  function noteOutcome(endpointId: string, answered: boolean) {
    if (answered) {
      circuits.delete(endpointId);
      return;
    }
    const c = circuits.get(endpointId) ?? { failures: 0, opens: 0, openUntil: 0 };
    c.failures += 1;
    const resting = c.openUntil > clock().getTime();
    // Attempts that were in flight when it opened end while it rests: they count, but do not lengthen the rest.
    if (!resting && (c.opens > 0 || c.failures >= circuitThreshold)) {
      c.opens += 1;
      c.openUntil = clock().getTime() + Math.min(circuitBaseMs * 2 ** (c.opens - 1), circuitMaxMs);
      options.log?.warn({ endpoint: endpointId, rest_ms: c.openUntil - clock().getTime() }, 'webhook endpoint gives no answer; resting it');
    }
    circuits.set(endpointId, c);
  }

  /**
   * Claims due deliveries under a lease, each with its endpoint and event
   * body, in one statement: in order within each (endpoint, resource), at
   * most the endpoint's free places each, none of a resting endpoint.
   */
  async function claim(limit: number): Promise<Claimed[]> {
    const now = clock().toISOString();
    const { resting, probing } = circuitState();
    return claimDeliveries(db, { now, limit, leaseSeconds, resting, probing, endpointConcurrency });
  }

  /** The signatures of a body: the current secret's, and the previous one's while it still signs. */
  function signatures(e: EndpointPart, id: string, timestamp: number, body: string): string {
    const sigs = [signPayload(secrets.open(e.secret_sealed), id, timestamp, body)];
    if (e.previous_secret_sealed && e.previous_secret_expires_at && new Date(e.previous_secret_expires_at) > clock()) {
      sigs.push(signPayload(secrets.open(e.previous_secret_sealed), id, timestamp, body));
    }
    return sigs.join(' ');
  }

  /**
   * One POST, the only outbound call: the address connected to is checked by
   * the guard's lookup (an address written in the URL, which no lookup sees,
   * is checked first); no redirect is followed (3xx is a failure). The
   * outcome is the status line and the first kilobyte of the answer; the
   * rest is dropped.
   */
  async function post(e: EndpointPart, eventId: string, body: string): Promise<Outcome> {
    const started = performance.now();
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    const excerpt = () => (statusCode === null ? null : Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replace(/\u0000/g, ''));
    const done = (error: string | null): Outcome => ({ statusCode, durationMs: Math.round(performance.now() - started), error: statusCode === null ? error : null, excerpt: excerpt() });
    let url: URL;
    try {
      url = guard.parse(e.url);
      if (isIP(url.hostname.replace(/^\[|\]$/g, ''))) await guard.resolveChecked(url);
    } catch (err) {
      return done((err as Error).message);
    }
    return new Promise<Outcome>((resolve) => {
      const timestamp = Math.floor(clock().getTime() / 1000);
      const lib = url.protocol === 'https:' ? https : http;
      const tooLong = () => new Error(`No answer within ${timeoutMs / 1000} s.`);
      const finish = (error: string | null) => resolve(done(error));
      const req = lib.request(
        url,
        {
          method: 'POST',
          agent: false,
          lookup: guard.lookupFor(url) as never,
          timeout: timeoutMs,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'memorybook-webhooks/1',
            'webhook-id': eventId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signatures(e, eventId, timestamp, body),
          },
        },
        (res) => {
          statusCode = res.statusCode ?? null;
          res.on('data', (c: Buffer) => {
            if (size >= RESPONSE_EXCERPT_BYTES) return;
            chunks.push(c);
            size += c.length;
            // Enough read: the rest of the answer is not waited for.
            if (size >= RESPONSE_EXCERPT_BYTES) {
              finish(null);
              res.destroy();
            }
          });
          res.on('end', () => finish(null));
          res.on('error', () => finish(null));
        },
      );
      const deadline = setTimeout(() => req.destroy(tooLong()), timeoutMs);
      req.on('timeout', () => req.destroy(tooLong()));
      req.on('error', (err) => finish(err.message.slice(0, 500)));
      req.on('close', () => {
        clearTimeout(deadline);
        finish('The connection closed without an answer.');
      });
      req.end(body);
    });
  }

  async function deliver(c: Claimed): Promise<void> {
    if (c.status !== 'enabled' && c.event_type !== 'ping') {
      await failDelivery(db, c.id);
      return;
    }
    const outcome = await tracedDelivery(c, () => post(c, c.event_id, c.body));
    noteOutcome(c.endpoint_id, outcome.statusCode !== null);
    await record(c, outcome);
  }

  /** The attempt's row, the delivery's next state and, on a final failure or 410, the endpoint disabled and its owner mailed: one transaction. */
  async function record(c: Claimed, o: Outcome) {
    const ok = o.statusCode !== null && o.statusCode >= 200 && o.statusCode < 300;
    const gone = o.statusCode === 410;
    const error = ok ? null : (o.error ?? `HTTP ${o.statusCode}`);
    // A redelivery starts the schedule again (retry_base: the attempts made before it).
    const wait = RETRY_SCHEDULE_SECONDS[c.attempts - c.retry_base - 1];
    const retry = !ok && !gone && wait !== undefined;
    const nextRetryAt = retry ? new Date(clock().getTime() + wait * 1000).toISOString() : null;
    // The attempt and the delivery's next state in one statement: a delivery that goes well costs two (claim, this).
    const step = (q: Queryable) =>
      recordAttempt(q, {
        delivery: c,
        statusCode: o.statusCode,
        durationMs: o.durationMs,
        error,
        nextRetryAt,
        at: clock().toISOString(),
        status: ok ? 'delivered' : retry ? 'pending' : 'failed',
        excerpt: o.excerpt,
      });
    webhookAttempts.inc({ outcome: ok ? 'delivered' : gone ? 'gone' : retry ? 'retry' : 'failed' });
    if (ok || retry) {
      await step(db);
      return;
    }
    await db.transaction(async (tx) => {
      await step(tx);
      const reason = gone ? 'gone' : 'failing';
      if (!(await disableEndpoint(tx, c.endpoint_id, reason))) return;
      // Its other pending deliveries stop with it.
      await failPendingOfEndpoint(tx, c.endpoint_id, c.id);
      const owner = await findUserById(tx, c.user_id);
      if (owner) {
        await deps.queue.send('mail.send', endpointDisabledMail(owner, { id: c.endpoint_id, url: c.url }, reason, error, deps.config.http.publicUrl), { tx });
      }
      options.log?.warn({ endpoint: c.endpoint_id, reason }, 'webhook endpoint disabled');
    });
  }

  /** Claims what is due (up to the free places) and starts each delivery on its own; resolves when these are claimed, not sent. */
  async function tick(): Promise<number> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return 0;
    const claimed = await claim(free);
    for (const c of claimed) {
      const p: Promise<void> = deliver(c)
        .catch((err) => options.log?.warn({ err, delivery: c.id }, 'webhook delivery failed to run; retried once its lease lapses'))
        .finally(() => {
          inFlight.delete(p);
          // The next event of its resource (or a waiting endpoint's) may go now, not at the next poll.
          wake();
        });
      inFlight.add(p);
    }
    return claimed.length;
  }

  function runTick() {
    ticking = tick()
      .catch((err) => options.log?.warn({ err }, 'claiming webhook deliveries failed; will retry'))
      .then(() => undefined)
      .finally(() => {
        ticking = undefined;
        const again = wakeAgain;
        wakeAgain = false;
        schedule(again ? 0 : pollIntervalMs);
      });
  }

  function schedule(delayMs = pollIntervalMs) {
    if (!running) return;
    clearTimeout(timer);
    timer = setTimeout(runTick, delayMs);
  }

  /** A tick now (or right after the one running), when polling. */
  function wake() {
    if (!running) return;
    if (ticking) wakeAgain = true;
    else schedule(0);
  }

  return {
    /** Polls for due deliveries until stop(). */
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    /** Stops claiming and waits for the deliveries in flight (each ends within the timeout). */
    async stop() {
      running = false;
      clearTimeout(timer);
      await ticking;
      await Promise.allSettled([...inFlight]);
    },
    /**
     * Passes now until nothing more is due, each pass's deliveries run to
     * their end (so a resource's later events follow its earlier ones); the
     * number claimed in all (tests, `memorybook` commands).
     */
    async runDue(): Promise<number> {
      let total = 0;
      for (;;) {
        const n = await tick();
        await Promise.allSettled([...inFlight]);
        if (n === 0) return total;
        total += n;
      }
    },
    tick,
  };
}
export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
