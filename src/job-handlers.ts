/**
 * The one registration list of job handlers, built where a worker builds its
 * services (`memorybook worker`, `serve` with its in-process worker, tests):
 * each handler is a thin call of a service method, so every rule holds for
 * jobs too, and src/jobs never imports a service. The compiler asks for a
 * handler for every job of the catalog.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/config.js';
import type { Db } from './db/client.js';
import { createHousekeeping } from './housekeeping.js';
import { ACCOUNT_EXPORT_RUNS, EXPORT_RENDERS, type JobPayloads } from './jobs/job-catalog.js';
import type { JobContext, JobHandlers, Queue } from './jobs/queue.js';
import { createScheduler, type Scheduler } from './jobs/scheduler.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { exportRenderDuration, mediaProcessDuration, timed } from './metrics/metrics.js';
import { createTwilioSmsProvider } from './messaging/sms-provider.js';
import { createTelegramBot } from './messaging/telegram-bot.js';
import { createWhatsAppSender } from './messaging/whatsapp-cloud.js';
import type { Services } from './services/index.js';
import { analyzeChangedTables } from './db/statistics.js';

/** `db`: the database the handlers run on, for housekeeping's statistics (analyzeChangedTables). */
export function createJobHandlers(deps: { services: Services; config: Config; db: Db }): JobHandlers<JobPayloads> {
  const { services, config } = deps;
  // One transport per process (SMTP connections are pooled inside it), made on the first mail.
  let mailer: Mailer | undefined;
  // Both kinds of export (a book, an account) run through the one export pipeline: a run under the job's lease, and the expiry.
  const runExport =
    (runs: number, duration?: typeof exportRenderDuration) =>
    async ({ exportId }: { exportId: string }, ctx: JobContext) => {
      const run = () => services.exportPipeline.run(exportId, { signal: ctx.signal, attempt: ctx.attempt, attempts: runs, log: ctx.log });
      await (duration ? timed(duration, run) : run());
    };
  const expireExport = async ({ exportId }: { exportId: string }) => services.exportPipeline.expire(exportId);
  return {
    async 'mail.send'(message, ctx) {
      if (message.stream && message.userId && !(await services.mailStreams.allowsMail(message.userId, message.stream))) {
        ctx.log.info({ job: ctx.id, stream: message.stream }, 'mail dropped: the recipient left this stream or their account is gone');
        return;
      }
      mailer ??= createMailer(config);
      const { messageId } = await mailer.send(message, { id: ctx.id });
      ctx.log.info({ job: ctx.id, message_id: messageId, transport: mailer.kind }, 'mail sent');
    },
    // The provider has no idempotency key: a run that dies after the provider accepted the message may send it twice.
    async 'sms.send'(message, ctx) {
      const twilio = config.messaging.twilio;
      if (!twilio) throw new Error('SMS is not configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM_NUMBER)');
      const { id } = await createTwilioSmsProvider(twilio).send(message, { signal: ctx.signal });
      ctx.log.info({ job: ctx.id, provider_id: id }, 'sms sent');
    },
    async 'telegram.send'(message, ctx) {
      const telegram = config.messaging.telegram;
      if (!telegram) throw new Error('Telegram is not configured (TELEGRAM_BOT_USERNAME, TELEGRAM_BOT_TOKEN)');
      const { id } = await createTelegramBot(telegram).sendMessage(message, { signal: ctx.signal });
      ctx.log.info({ job: ctx.id, message_id: id }, 'telegram message sent');
    },
    async 'whatsapp.send'(message, ctx) {
      const whatsapp = config.messaging.whatsapp;
      if (!whatsapp) throw new Error('WhatsApp is not configured (WHATSAPP_PHONE_NUMBER, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN, …)');
      const { to, text, template } = message;
      if (template) await createWhatsAppSender(whatsapp).send({ to, template }, { signal: ctx.signal });
      else if (text !== undefined) await createWhatsAppSender(whatsapp).send({ to, text }, { signal: ctx.signal });
      ctx.log.info({ job: ctx.id, template: template?.name }, 'whatsapp message sent');
    },
    async 'push.send'(payload, ctx) {
      const outcome = await services.devices.send(payload, { signal: ctx.signal, log: ctx.log });
      ctx.log.info({ job: ctx.id, device: payload.deviceId, outcome }, 'push');
    },
    async 'inbound.fetch-media'(key, ctx) {
      const outcome = await services.channelMedia.fetch(key, { signal: ctx.signal, lastAttempt: ctx.attempt > ctx.retryLimit, log: ctx.log });
      ctx.log.info({ job: ctx.id, provider: key.provider, position: key.position, outcome }, 'inbound file');
    },
    async 'book.erase-backup'({ bookId }) {
      if (!(await services.bookDeletion.completeErasure(bookId))) throw new Error('backup erasure endpoint did not confirm; will retry');
    },
    async 'book.purge'({ bookId }) {
      await services.bookDeletion.purge(bookId);
    },
    async 'account.erase-backup'({ userId }) {
      if (!(await services.account.completeErasure(userId))) throw new Error('backup erasure endpoint did not confirm; will retry');
    },
    async 'account.purge'({ userId }) {
      await services.account.purge(userId);
    },
    'account.export': runExport(ACCOUNT_EXPORT_RUNS),
    'account.export-expire': expireExport,
    async 'mail.digests'({ day }, ctx) {
      const queued = await services.mailStreams.sendDigests(day);
      ctx.log.info({ day, queued }, 'daily digests queued');
    },
    async 'mail.activity-reminders'({ day }, ctx) {
      const queued = await services.mailStreams.sendActivityReminders();
      ctx.log.info({ day, queued }, 'activity reminders queued');
    },
    async 'media.process'({ mediaId }, ctx) {
      await timed(mediaProcessDuration, () => services.mediaProcessing.process(mediaId, { signal: ctx.signal, lastAttempt: ctx.attempt > ctx.retryLimit, log: ctx.log }));
    },
    async 'email.process'({ inboundEmailId }, ctx) {
      await services.inboundEmail.process(inboundEmailId, { log: ctx.log }); // logs what came of it
    },
    async 'storage.delete-objects'({ keys }) {
      await services.media.deleteObjects(keys);
    },
    async 'share-card.render'({ submissionId, token }, ctx) {
      const outcome = await services.shareCards.render(submissionId, token, { signal: ctx.signal });
      ctx.log.info({ job: ctx.id, submission: submissionId, outcome }, 'share card');
    },
    async 'transcription.run'({ mediaId }, ctx) {
      const outcome = await services.transcriptions.run(mediaId, { signal: ctx.signal, lastAttempt: ctx.attempt > ctx.retryLimit, log: ctx.log });
      ctx.log.info({ job: ctx.id, media: mediaId, outcome }, 'transcription');
    },
    'export.render': runExport(EXPORT_RENDERS, exportRenderDuration),
    'export.expire': expireExport,
    async 'notifications.new-submission'({ submissionId }, ctx) {
      const queued = await services.notifications.notifyNewSubmission(submissionId);
      ctx.log.info({ job: ctx.id, submission_id: submissionId, queued }, 'new-memory notifications queued');
    },
    async 'notifications.digest'({ day }, ctx) {
      const queued = await services.notifications.sendDigests(day);
      ctx.log.info({ day, queued }, 'subscription digests queued');
    },
    async 'billing.cancel-subscription'({ subscriptionId, reason }, ctx) {
      const outcome = await services.billingCheckout.cancelAtStripe(subscriptionId);
      ctx.log.info({ job: ctx.id, subscription: subscriptionId, reason, outcome }, 'stripe subscription canceled');
    },
    async 'housekeeping.run'(_payload, ctx) {
      await createHousekeeping({ services, log: ctx.log, requestTimeoutMs: config.http.timeouts.requestMs }).run();
      // PGlite has no autovacuum: its planner statistics are refreshed here (see db/statistics.ts).
      const analyzed = await analyzeChangedTables(deps.db);
      if (analyzed.length) ctx.log.info({ analyzed }, 'planner statistics refreshed');
    },
    async 'deletions.sweep'(_payload, ctx) {
      const books = await services.bookDeletion.resumeOwed();
      const accounts = { erasures: await services.account.resumeErasures(), purges: await services.account.resumePurges() };
      if (books.erasures || books.purges || accounts.erasures || accounts.purges) ctx.log.info({ books, accounts }, 'owed erasures and purges queued again');
    },
  };
}

export interface JobRunnerOptions {
  /** The clock schedules compute their periods from (tests pass a fake one). */
  now?: () => Date;
  /** How often schedules are checked (default 60 s). */
  scheduleTickMs?: number;
  /** The first check waits this long (on PGlite the start's first moments are better spent on requests). */
  firstTickAfterMs?: number;
}

export interface JobRunner {
  scheduler: Scheduler;
  /** Stops the schedules (the queue is stopped by its owner). */
  stop(): Promise<void>;
}

/**
 * What makes a process a worker: the queue runs the handlers, and the
 * schedules queue recurring work. A process that only serves the API
 * (`serve --no-worker`) calls neither and only sends.
 */
export function runJobs(
  deps: { db: Db; config: Config; queue: Queue; services: Services; log: FastifyBaseLogger },
  options: JobRunnerOptions = {},
): JobRunner {
  deps.queue.work(createJobHandlers(deps));
  const scheduler = createScheduler({ db: deps.db, queue: deps.queue, log: deps.log, now: options.now, tickMs: options.scheduleTickMs });
  scheduler.start({ firstTickAfterMs: options.firstTickAfterMs });
  // Webhook deliveries have their own queue (their rows); a worker sends them.
  deps.services.webhookDispatcher.start();
  return { scheduler, stop: () => Promise.all([scheduler.stop(), deps.services.webhookDispatcher.stop()]).then(() => undefined) };
}
