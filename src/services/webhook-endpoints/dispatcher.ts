import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Queryable } from '../../db/client.js';
import { uuidv7 } from '../../lib/ids.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { tracedDelivery } from './delivery-span.js';
import { endpointDisabledMail } from './endpoint-mail.js';
import type { EndpointRow } from './endpoint-repository.js';
import { signPayload, type SecretBox } from './signing.js';
import type { UrlGuard } from './url-guard.js';
import { webhookAttempts } from '../../metrics/metrics.js';

/** Waits before each retry after a failed attempt (about 28 h in all); after the last the endpoint is disabled. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** A delivery is a 2xx within this long. */
export const DELIVERY_TIMEOUT_MS = 15_000;

export interface DispatcherOptions {
  /** The clock retries and leases are computed from (tests pass a fake one). */
  now?: () => Date;
  /** Deliveries in flight at once in this process: a receiver that hangs holds one of them for at most the timeout. */
  concurrency?: number;
  pollIntervalMs?: number;
  timeoutMs?: number;
  /** How long a claimed delivery is held before another worker may take it (its worker died). More than the timeout. */
  leaseSeconds?: number;
  log?: Pick<FastifyBaseLogger, 'info' | 'warn'>;
}

type EndpointPart = Pick<EndpointRow, 'user_id' | 'url' | 'status' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at'>;

interface Claimed extends EndpointPart {
  id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
  event_type: string;
  body: string;
}

interface Outcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Sends webhook deliveries: a dedicated queue on the webhook_deliveries rows
 * (each a pending (event, endpoint) pair written with its event). A worker
 * claims due rows with SKIP LOCKED and a lease, so each is sent by one
 * worker at a time and a worker killed mid-delivery leaves it to the next
 * once the lease lapses (at least once, same webhook-id). Every delivery
 * runs on its own, up to `concurrency` at once, so a receiver that hangs
 * delays no other endpoint; the request that made the change only wrote rows.
 */
export function createWebhookDispatcher(
  deps: { db: Db; config: { http: Pick<Config['http'], 'publicUrl'> }; queue?: JobSender; guard: UrlGuard; secrets: SecretBox },
  options: DispatcherOptions = {},
) {
  const { db, guard, secrets } = deps;
  const clock = () => options.now?.() ?? new Date();
  const concurrency = options.concurrency ?? 32;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const leaseSeconds = options.leaseSeconds ?? Math.ceil(timeoutMs / 1000) + 45;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let ticking: Promise<void> | undefined;

  /** Claims due deliveries under a lease, each with its endpoint and event body: one statement for the lot. */
  async function claim(limit: number): Promise<Claimed[]> {
    const now = clock().toISOString();
    return db.query<Claimed>(
      `WITH c AS (
         UPDATE webhook_deliveries d SET lease_until = $1::timestamptz + make_interval(secs => $3), attempts = d.attempts + 1
         WHERE d.id IN (
           SELECT id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= $1::timestamptz AND (lease_until IS NULL OR lease_until <= $1::timestamptz)
           ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING d.id, d.event_id, d.endpoint_id, d.attempts)
       SELECT c.id, c.event_id, c.endpoint_id, c.attempts, e.type AS event_type, e.body::text AS body,
              w.user_id, w.url, w.status, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at
       FROM c JOIN events e ON e.id = c.event_id JOIN webhook_endpoints w ON w.id = c.endpoint_id`,
      [now, limit, leaseSeconds],
    ) as Promise<Claimed[]>;
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
   * One POST: the address connected to is checked by the guard's lookup (an
   * address written in the URL, which no lookup sees, is checked first); no
   * redirect is followed (3xx is a failure). The outcome is the status line:
   * the rest of the answer is drained and dropped.
   */
  async function post(e: EndpointPart, eventId: string, body: string): Promise<Outcome> {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null): Outcome => ({ statusCode, durationMs: Math.round(performance.now() - started), error });
    let url: URL;
    try {
      url = guard.parse(e.url);
      if (isIP(url.hostname.replace(/^\[|\]$/g, ''))) await guard.resolveChecked(url);
    } catch (err) {
      return done(null, (err as Error).message);
    }
    return new Promise<Outcome>((resolve) => {
      const timestamp = Math.floor(clock().getTime() / 1000);
      const lib = url.protocol === 'https:' ? https : http;
      const tooLong = () => new Error(`No answer within ${timeoutMs / 1000} s.`);
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
          resolve(done(res.statusCode ?? null, null));
          res.on('error', () => {});
          res.resume();
        },
      );
      const deadline = setTimeout(() => req.destroy(tooLong()), timeoutMs);
      req.on('timeout', () => req.destroy(tooLong()));
      req.on('error', (err) => resolve(done(null, err.message.slice(0, 500))));
      req.on('close', () => {
        clearTimeout(deadline);
        resolve(done(null, 'The connection closed without an answer.'));
      });
      req.end(body);
    });
  }

  async function deliver(c: Claimed): Promise<void> {
    if (c.status !== 'enabled' && c.event_type !== 'ping') {
      await db.query(`UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL WHERE id = $1`, [c.id]);
      return;
    }
    await record(c, await tracedDelivery(c, () => post(c, c.event_id, c.body)));
  }

  /** The attempt's row, the delivery's next state and, on a final failure or 410, the endpoint disabled and its owner mailed: one transaction. */
  async function record(c: Claimed, o: Outcome) {
    const ok = o.statusCode !== null && o.statusCode >= 200 && o.statusCode < 300;
    const gone = o.statusCode === 410;
    const error = ok ? null : (o.error ?? `HTTP ${o.statusCode}`);
    const wait = RETRY_SCHEDULE_SECONDS[c.attempts - 1];
    const retry = !ok && !gone && wait !== undefined;
    const nextRetryAt = retry ? new Date(clock().getTime() + wait * 1000).toISOString() : null;
    // The attempt and the delivery's next state in one statement: a delivery that goes well costs two (claim, this).
    const step = (q: Queryable) =>
      q.query(
        `WITH a AS (
           INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, event_id, attempt, status_code, duration_ms, error, next_retry_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10))
         UPDATE webhook_deliveries SET status = $11, next_attempt_at = COALESCE($9::timestamptz, next_attempt_at), lease_until = NULL WHERE id = $2`,
        [uuidv7(), c.id, c.endpoint_id, c.event_id, c.attempts, o.statusCode, o.durationMs, error, nextRetryAt, clock().toISOString(), ok ? 'delivered' : retry ? 'pending' : 'failed'],
      );
    webhookAttempts.inc({ outcome: ok ? 'delivered' : gone ? 'gone' : retry ? 'retry' : 'failed' });
    if (ok || retry) {
      await step(db);
      return;
    }
    await db.transaction(async (tx) => {
      await step(tx);
      const reason = gone ? 'gone' : 'failing';
      const [disabled] = await tx.query<{ id: string }>(
        `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2 WHERE id = $1 AND status = 'enabled' RETURNING id`,
        [c.endpoint_id, reason],
      );
      if (!disabled) return;
      // Its other pending deliveries stop with it.
      await tx.query(`UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL WHERE endpoint_id = $1 AND status = 'pending' AND id <> $2`, [c.endpoint_id, c.id]);
      const [owner] = await tx.query<{ email: string; first_name: string }>(`SELECT email, first_name FROM users WHERE id = $1 AND deleted_at IS NULL`, [c.user_id]);
      if (owner && deps.queue) {
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
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    return claimed.length;
  }

  function schedule() {
    if (!running) return;
    timer = setTimeout(() => {
      ticking = tick()
        .catch((err) => options.log?.warn({ err }, 'claiming webhook deliveries failed; will retry'))
        .then(() => undefined)
        .finally(() => {
          ticking = undefined;
          schedule();
        });
    }, pollIntervalMs);
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
    /** One pass now, and the deliveries it started run to their end (tests, `memorybook` commands). */
    async runDue(): Promise<number> {
      const n = await tick();
      await Promise.allSettled([...inFlight]);
      return n;
    },
    tick,
  };
}
export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
