/**
 * Every background job: its name, payload schema and send options, and the
 * schedules that queue recurring work. This module imports nothing but
 * TypeBox (and the transaction's type): services enqueue through the JobSender port below, the queue
 * adapter (queue.ts) reads the options, and the handlers are registered
 * apart, where the process builds its services (src/job-handlers.ts).
 *
 * To add a job: an entry in `jobCatalog` (name, payload, options, what
 * `memorybook jobs failed` may show), a handler in src/job-handlers.ts (the
 * compiler asks for it), and a send in the service transaction that makes the
 * state change: `await deps.queue.send('area.verb', payload, { tx })`.
 * A payload change that old queued jobs would not pass is a new name
 * (`area.verb.v2`); keep the old handler until it drains.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Tx } from '../db/client.js';

/**
 * Why a running job's signal is aborted when its worker stops (still running
 * at the shutdown timeout). The queue gives such a run back uncounted, for
 * another worker to run again: a handler must not record it as a failure of
 * its work.
 */
export class WorkerStoppedError extends Error {
  constructor() {
    super('the worker stopped while the job was running');
    this.name = 'WorkerStoppedError';
  }
}

/** True once a run's signal was aborted because its worker is stopping. */
export const stoppedByWorker = (signal: AbortSignal): boolean => signal.aborted && signal.reason instanceof WorkerStoppedError;

/** pg-boss queue policies: `stately` keeps at most one queued, one retrying and one running job per singleton key. */
export type QueuePolicy = 'standard' | 'short' | 'singleton' | 'stately';

export interface JobOptions<P> {
  /** Retries after the first attempt (default 3). */
  retryLimit?: number;
  /** Seconds before the first retry (default 10). */
  retryDelay?: number;
  /** Double the delay on every retry, with jitter (default true). */
  retryBackoff?: boolean;
  /** The lease: a run longer than this is aborted and retried, also when its worker died (default 900). */
  expireInSeconds?: number;
  /** With a `singleton`/`stately`/`short` policy, jobs with the same key are deduplicated. */
  singletonKey?(payload: P): string;
  policy?: QueuePolicy;
  /** Handlers of this job running at once in one process (default 1). */
  concurrency?: number;
  /**
   * The run holds its lease by a heartbeat: its worker renews it this often
   * (seconds) and lets it lapse after three missed beats, so a run whose
   * process died is taken up again by any worker within about that much
   * time, rather than after the whole `expireInSeconds` (which stays the
   * longest a run may take).
   */
  heartbeatSeconds?: number;
}

/** A job as the queue knows it: everything but its handler. */
export interface JobSpec<N extends string = string, S extends TSchema = TSchema> {
  name: N;
  payload: S;
  options?: JobOptions<Static<S>>;
  /** What `memorybook jobs failed` may show of a payload: ids, never message bodies or secrets (default: nothing). */
  summarize?(payload: Static<S>): Record<string, unknown>;
}

const spec = <N extends string, S extends TSchema>(s: JobSpec<N, S>): JobSpec<N, S> => s;

const id = () => Type.String({ minLength: 36, maxLength: 36 });
export const BookIdPayload = Type.Object({ bookId: id() });
export const UserIdPayload = Type.Object({ userId: id() });
export const ExportIdPayload = Type.Object({ exportId: id() });
export const AccountExportIdPayload = Type.Object({ exportId: id() });
export const MediaIdPayload = Type.Object({ mediaId: id() });
export const SubmissionIdPayload = Type.Object({ submissionId: id() });
export const DayPayload = Type.Object({ day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) });
/** The start of the schedule period a recurring job was queued for (ISO 8601). */
export const PeriodPayload = Type.Object({ period: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T', maxLength: 40 }) });
export const DeleteObjectsPayload = Type.Object({ keys: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 1000 }) });
export const InboundEmailIdPayload = Type.Object({ inboundEmailId: id() });
export const ShareCardPayload = Type.Object({ submissionId: id(), token: id() });
/** A Stripe subscription to cancel there, and why (`book_deleted`, `account_purged`). */
export const CancelSubscriptionPayload = Type.Object({
  subscriptionId: Type.String({ minLength: 1, maxLength: 255 }),
  reason: Type.String({ maxLength: 40 }),
});
/**
 * Added fields are optional, so jobs queued before they existed still pass.
 * `stream` and `userId` mark mail of a stream the recipient may leave: it is
 * checked right before sending, and dropped once they have left.
 */
export const SendMailPayload = Type.Object({
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  html: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  stream: Type.Optional(Type.String()),
  userId: Type.Optional(Type.String()),
});
/** `to` in E.164. */
export const SendSmsPayload = Type.Object({ to: Type.String(), body: Type.String() });
export const SendTelegramPayload = Type.Object({ chat_id: Type.String(), text: Type.String() });
/** `to` in E.164; a text (inside the 24-hour window the person's own message opened) or an approved template. */
export const SendWhatsAppPayload = Type.Object({
  to: Type.String(),
  text: Type.Optional(Type.String()),
  template: Type.Optional(Type.Object({ name: Type.String(), language: Type.String(), parameters: Type.Array(Type.String()) })),
});
/** One push to one device; a title and a short preview only (never a memory's whole text). */
export const SendPushPayload = Type.Object({
  deviceId: id(),
  bookId: id(),
  bookSlug: Type.String({ maxLength: 200 }),
  kind: Type.String({ maxLength: 40 }),
  title: Type.String({ maxLength: 200 }),
  body: Type.String({ maxLength: 400 }),
});
/** A file of an inbound message: the row (provider, message id, position) in inbound_media. */
export const InboundMediaPayload = Type.Object({
  provider: Type.Union([Type.Literal('twilio'), Type.Literal('telegram'), Type.Literal('whatsapp')]),
  externalId: Type.String({ minLength: 1, maxLength: 512 }),
  position: Type.Integer({ minimum: 0, maximum: 99 }),
});

/** Renders per export job; the queue keeps one run more in reserve (its last run records the failure). */
export const EXPORT_RENDERS = 4;
/** Runs of an account export before it is failed for good; the queue keeps one spare run, as for EXPORT_RENDERS. */
export const ACCOUNT_EXPORT_RUNS = 3;

/** The number with all but its last digits hidden, for `memorybook jobs failed`. */
const masked = (to: string) => `${to.slice(0, 3)}…${to.slice(-2)}`;

/** The daily jobs: one per UTC day, whatever the number of workers (see `schedules`). */
const daily = { retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 900, heartbeatSeconds: 10, policy: 'stately', singletonKey: (p: { day: string }) => p.day } as const;

/**
 * Backup erasure retries back off from the operator's BACKUP_ERASURE_RETRY_SECONDS
 * (30 s) for about an hour (six retries: 1, 2 … 32 times the delay, with
 * jitter up to twice that), then the job fails. The book or account meanwhile
 * stays "deletion requested", and the hourly `deletions.sweep` queues a new
 * job for it while that is so: the erasure is retried for as long as it
 * takes, with no job kept alive for ever.
 */
const erasure = { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120, policy: 'stately', heartbeatSeconds: 5 } as const;

export const jobCatalog = {
  'mail.send': spec({
    name: 'mail.send',
    payload: SendMailPayload,
    options: { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
    // Never the body: it may hold a sign-in or confirmation link.
    summarize: (m) => ({ to: m.to, subject: m.subject, ...(m.stream ? { stream: m.stream } : {}) }),
  }),
  'sms.send': spec({
    name: 'sms.send',
    payload: SendSmsPayload,
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
    // Never the body: it may hold an invitation link.
    summarize: (m) => ({ to: masked(m.to) }),
  }),
  'telegram.send': spec({
    name: 'telegram.send',
    payload: SendTelegramPayload,
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
    summarize: (m) => ({ chat_id: m.chat_id }),
  }),
  'whatsapp.send': spec({
    name: 'whatsapp.send',
    payload: SendWhatsAppPayload,
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
    // Never the text or the template's parameters: they may hold an invitation link.
    summarize: (m) => ({ to: masked(m.to), ...(m.template ? { template: m.template.name } : {}) }),
  }),
  /** A provider's "gone" removes the device (no retry); any other failure is retried. */
  'push.send': spec({
    name: 'push.send',
    payload: SendPushPayload,
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 120, concurrency: 4 },
    // Never the preview: it quotes a memory.
    summarize: (p) => ({ deviceId: p.deviceId, bookId: p.bookId, kind: p.kind }),
  }),
  /**
   * Fetches a file sent with an inbound message from its provider and
   * attaches it to the memory. The lease is held by a heartbeat, so a slow
   * download may take minutes while a worker killed mid-download has its job
   * run again within about 15 s; the row's status makes the second run attach
   * the file once.
   */
  'inbound.fetch-media': spec({
    name: 'inbound.fetch-media',
    payload: InboundMediaPayload,
    options: { retryLimit: 4, retryDelay: 5, retryBackoff: true, expireInSeconds: 600, heartbeatSeconds: 5, concurrency: 2 },
    summarize: (p) => ({ provider: p.provider, position: p.position }),
  }),
  'book.erase-backup': spec({
    name: 'book.erase-backup',
    payload: BookIdPayload,
    options: { ...erasure, singletonKey: (p) => p.bookId },
    summarize: (p) => ({ bookId: p.bookId }),
  }),
  'book.purge': spec({
    name: 'book.purge',
    payload: BookIdPayload,
    // The key finds a pending purge for the sweep (unlessPending); the standard policy dedupes nothing.
    options: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 900, heartbeatSeconds: 5, singletonKey: (p) => p.bookId },
    summarize: (p) => ({ bookId: p.bookId }),
  }),
  'account.erase-backup': spec({
    name: 'account.erase-backup',
    payload: UserIdPayload,
    options: { ...erasure, singletonKey: (p) => p.userId },
    summarize: (p) => ({ userId: p.userId }),
  }),
  'account.purge': spec({
    name: 'account.purge',
    payload: UserIdPayload,
    // Keyed so the sweep can tell one is pending; a purge that gave up is queued again by the sweep (users.purged_at).
    options: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 900, heartbeatSeconds: 5, singletonKey: (p) => p.userId },
    summarize: (p) => ({ userId: p.userId }),
  }),
  'account.export': spec({
    name: 'account.export',
    payload: AccountExportIdPayload,
    options: { retryLimit: ACCOUNT_EXPORT_RUNS, retryDelay: 30, retryBackoff: true, expireInSeconds: 1800, heartbeatSeconds: 10, concurrency: 1 },
    summarize: (p) => ({ exportId: p.exportId }),
  }),
  'account.export-expire': spec({
    name: 'account.export-expire',
    payload: AccountExportIdPayload,
    options: { retryLimit: 10, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
    summarize: (p) => ({ exportId: p.exportId }),
  }),
  'mail.digests': spec({ name: 'mail.digests', payload: DayPayload, options: daily, summarize: (p) => ({ day: p.day }) }),
  'mail.activity-reminders': spec({ name: 'mail.activity-reminders', payload: DayPayload, options: daily, summarize: (p) => ({ day: p.day }) }),
  'media.process': spec({
    name: 'media.process',
    payload: MediaIdPayload,
    // A video's probe and poster frame may take minutes; the heartbeat frees a dead worker's run within about 15 s.
    options: { retryLimit: 4, retryDelay: 15, retryBackoff: true, expireInSeconds: 900, heartbeatSeconds: 5, concurrency: 2 },
    summarize: (p) => ({ mediaId: p.mediaId }),
  }),
  /**
   * A mail received for a book (spooled, answered 250/202) becomes its memory; safe to run again (the row
   * records it done). Even a 90 MB message takes seconds, but its attachments go through the media intake: the
   * lease is held by a heartbeat, so one cut off by a dead worker runs again within about 15 s.
   */
  'email.process': spec({
    name: 'email.process',
    payload: InboundEmailIdPayload,
    options: { retryLimit: 6, retryDelay: 15, retryBackoff: true, expireInSeconds: 300, heartbeatSeconds: 5, concurrency: 2 },
    summarize: (p) => ({ inboundEmailId: p.inboundEmailId }),
  }),
  'storage.delete-objects': spec({
    name: 'storage.delete-objects',
    payload: DeleteObjectsPayload,
    options: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 600, heartbeatSeconds: 5 },
    summarize: (p) => ({ count: p.keys.length }),
  }),
  'share-card.render': spec({
    name: 'share-card.render',
    payload: ShareCardPayload,
    options: { retryLimit: 4, retryDelay: 15, retryBackoff: true, expireInSeconds: 300, heartbeatSeconds: 5 },
    summarize: (p) => ({ submissionId: p.submissionId }),
  }),
  /**
   * A render may take 30 minutes (the largest books); its lease is held by a
   * heartbeat, so a killed worker's render is taken up again about half a
   * minute after its last beat.
   */
  'export.render': spec({
    name: 'export.render',
    payload: ExportIdPayload,
    options: { retryLimit: EXPORT_RENDERS, retryDelay: 30, retryBackoff: true, expireInSeconds: 1800, heartbeatSeconds: 10, concurrency: 1 },
    summarize: (p) => ({ exportId: p.exportId }),
  }),
  /**
   * One provider call for a transcription (the recording streamed to it).
   * Provider failures are retried by the service, which queues the next run
   * after its backoff or the provider's Retry-After; the queue's own retries
   * cover a run cut off (a worker that died, the store unreachable). A long
   * recording may take many minutes: the lease is held by a heartbeat.
   */
  'transcription.run': spec({
    name: 'transcription.run',
    payload: MediaIdPayload,
    options: { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 7200, heartbeatSeconds: 10, concurrency: 1 },
    summarize: (p) => ({ mediaId: p.mediaId }),
  }),
  'export.expire': spec({
    name: 'export.expire',
    payload: ExportIdPayload,
    options: { retryLimit: 10, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
    summarize: (p) => ({ exportId: p.exportId }),
  }),
  'notifications.new-submission': spec({
    name: 'notifications.new-submission',
    payload: SubmissionIdPayload,
    options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
    summarize: (p) => ({ submissionId: p.submissionId }),
  }),
  'notifications.digest': spec({ name: 'notifications.digest', payload: DayPayload, options: daily, summarize: (p) => ({ day: p.day }) }),
  /** Idempotent (a subscription Stripe no longer bills is done), so retries are safe; Stripe down retries for about an hour. */
  'billing.cancel-subscription': spec({
    name: 'billing.cancel-subscription',
    payload: CancelSubscriptionPayload,
    options: { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 120, singletonKey: (p) => p.subscriptionId },
    summarize: (p) => ({ subscriptionId: p.subscriptionId, reason: p.reason }),
  }),
  /** Clean-up (expired keys, old rate-limit hits, uploads whose request died, stuck media, stale invitations). */
  'housekeeping.run': spec({
    name: 'housekeeping.run',
    payload: PeriodPayload,
    options: { retryLimit: 1, retryDelay: 60, retryBackoff: false, expireInSeconds: 600, heartbeatSeconds: 10, policy: 'stately', singletonKey: (p) => p.period },
    summarize: (p) => ({ period: p.period }),
  }),
  /** Queues the backup erasures still owed (books and accounts whose deletion waits for it). */
  'deletions.sweep': spec({
    name: 'deletions.sweep',
    payload: PeriodPayload,
    options: { retryLimit: 2, retryDelay: 60, retryBackoff: true, expireInSeconds: 600, heartbeatSeconds: 10, policy: 'stately', singletonKey: (p) => p.period },
    summarize: (p) => ({ period: p.period }),
  }),
} as const;

type Catalog = typeof jobCatalog;
export type JobName = keyof Catalog & string;

/** Job name → payload, for every job the service runs; `send` is checked against it. */
export type JobPayloads = { [N in JobName]: Static<Catalog[N]['payload']> };

/** Every job, for the queue adapter (queues to create, payloads to check). */
export const jobSpecs: readonly JobSpec[] = Object.values(jobCatalog) as JobSpec[];

export interface JobSendOptions {
  /**
   * Enqueue inside this transaction: the job exists only if it commits.
   * Always pass it inside a transaction: on PGlite a send outside would wait
   * for that very transaction to end. A transaction's handle (Tx), as
   * recordEvent takes: the compiler refuses the bare Db or a Queryable, so
   * outgoing work is written with the change that owes it.
   */
  tx?: Tx;
  /** Run no earlier than this many seconds from now. */
  startAfterSeconds?: number;
  /** Jobs of higher priority are taken first (default 0; ties go oldest first). */
  priority?: number;
  /** Overrides the job's own singletonKey(payload). */
  singletonKey?: string;
  /** Overrides the job's retryDelay (an operator setting, e.g. how often to retry an outside endpoint). */
  retryDelaySeconds?: number;
  /**
   * Send nothing while a job of this name and singleton key is waiting,
   * retrying or running (for sweeps that re-queue what is still owed).
   */
  unlessPending?: boolean;
}

/**
 * The port services enqueue through: a job sent in the transaction that
 * makes the state change. The pg-boss adapter (queue.ts) implements it; a
 * service names only this type. Resolves to the job's id, or null when a
 * singleton key (or `unlessPending`) kept it from being queued.
 */
export interface JobSender<M extends object = JobPayloads> {
  send<N extends keyof M & string>(name: N, payload: M[N], options?: JobSendOptions): Promise<string | null>;
}

/** A schedule: queues `job` once per period across every worker (see jobs/scheduler.ts). */
export interface Schedule<N extends JobName = JobName> {
  /** The key its claims are stored under; the job name unless two schedules share one job. */
  name: string;
  job: N;
  /** The period length; periods start at multiples of it from the Unix epoch (UTC days for 86400). */
  everySeconds: number;
  payload(periodStart: Date): JobPayloads[N];
}

const schedule = <N extends JobName>(s: Schedule<N>): Schedule => s as unknown as Schedule;
const dayOf = (start: Date) => ({ day: start.toISOString().slice(0, 10) });
const periodOf = (start: Date) => ({ period: start.toISOString() });
const DAY = 24 * 3600;

/** Recurring work: run by workers (`memorybook worker`, `serve` with its worker), never by `serve --no-worker`. */
export const schedules: readonly Schedule[] = [
  schedule({ name: 'housekeeping.run', job: 'housekeeping.run', everySeconds: 600, payload: periodOf }),
  schedule({ name: 'deletions.sweep', job: 'deletions.sweep', everySeconds: 3600, payload: periodOf }),
  schedule({ name: 'mail.digests', job: 'mail.digests', everySeconds: DAY, payload: dayOf }),
  schedule({ name: 'mail.activity-reminders', job: 'mail.activity-reminders', everySeconds: DAY, payload: dayOf }),
  schedule({ name: 'notifications.digest', job: 'notifications.digest', everySeconds: DAY, payload: dayOf }),
];
