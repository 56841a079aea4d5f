import type { Config } from '../config/config.js';
import type { Db, Tx } from '../db/client.js';
import { createCursorCodec } from '../db/pagination.js';
import type { MailMessage } from '../mail/mailer.js';
import type { JobSender } from '../jobs/job-catalog.js';
import { lazyService } from './lazy-service.js';
import { createWebhookDispatcher, type DispatcherOptions } from './webhook-endpoints/dispatcher.js';
import { createUrlGuard, type Resolver } from './webhook-endpoints/url-guard.js';
import { createSecretBox } from './webhook-endpoints/signing.js';
import { createWebhookEndpointService } from './webhook-endpoints/endpoint-service.js';
import { createBillingCheckoutService, PORTAL_PATH } from './billing-checkout/billing-checkout-service.js';
import { createStripeGateway } from './billing-checkout/stripe-gateway.js';
import { createSessionService } from './sessions/session-service.js';
import { createIdempotencyStore } from './idempotency/idempotency-store.js';
import { createBookAccess } from './books/book-access.js';
import { createMediaViews } from './media/media-views.js';
import { createObjectStore } from '../storage/index.js';
import type { ObjectStore } from '../storage/object-store.js';

/** What the services are built from: the process entry creates these, tests create their own. */
export interface ServiceDeps {
  config: Config;
  db: Db;
  /** The background job queue (a process that sends no jobs passes a NoJobQueue: jobs/no-job-queue.ts). */
  queue: JobSender;
  /** The object store; built from config when not given (a test may hand in one it has wrapped). */
  store?: ObjectStore;
  /** Outbound webhooks: the DNS resolver of the URL guard and the dispatcher's options (tests pass their own). */
  webhooks?: DispatcherOptions & { resolver?: Resolver; /** The dispatcher's clock (tests pass a fake one). */ now?: () => Date };
}

/**
 * The one place the services are built: the server, the worker's job
 * handlers, the operator CLI and the tests all use these, so every rule holds
 * whichever way a change comes in.
 */
export function createServices(deps: ServiceDeps) {
  const { db, config, queue } = deps;
  // A required job sender: a process that sends no jobs passes a NoJobQueue, which refuses to send.
  const jobs: JobSender = queue;
  const cursors = createCursorCodec(config.secretKey);
  // The services' clock (a required argument of those that read the time).
  const now = () => new Date();
  const enqueueMail = (message: MailMessage, tx: Tx) => queue.send('mail.send', message, { tx }).then(() => undefined);
  // Made at once: the routes import these modules anyway, and their members answer at once (no promise).
  const access = createBookAccess({ db });
  const store = deps.store ?? createObjectStore(config);
  const views = createMediaViews({ store });
  // Every other service is made on first use (lazyService): its module loads then, not before listen.
  const webhookGuard = createUrlGuard(config.webhookAllowPrivate, deps.webhooks?.resolver);
  const webhookSecrets = createSecretBox(config.secretKey);
  const tokens = lazyService(() => import('./tokens/token-service.js').then((m) => m.createTokenService({ db })));
  const audit = lazyService(() => import('./audit/audit-service.js').then((m) => m.createAuditService({ db })));
  const media = lazyService(() => import('./media/media-service.js').then((m) => m.createMediaService({ db, config, access, store, views, queue })));
  const transcriptions = lazyService(async () => {
    const [{ createTranscriptionService }, { createTranscriber }] = await Promise.all([import('./transcriptions/transcription-service.js'), import('../media-tools/transcriber.js')]);
    return createTranscriptionService({ db, config, access, store, queue, transcriber: config.transcription ? createTranscriber(config.transcription) : null });
  });
  // One pipeline for both kinds of export; each kind renders its own file.
  const exportPipeline = lazyService(async () => {
    const [{ createExportPipeline }, { createBookExportVariant }, { createAccountExportVariant }] = await Promise.all([
      import('./exports/export-pipeline.js'),
      import('./exports/book-export-variant.js'),
      import('./exports/account-export-variant.js'),
    ]);
    return createExportPipeline({
      db,
      store,
      queue,
      now,
      variants: {
        book: createBookExportVariant({ db, store, now, paperCaliperUm: config.printPaperCaliperUm, publicUrl: config.http.publicUrl }),
        account: createAccountExportVariant({ db, store, now }),
      },
    });
  });
  const exports = lazyService(() => import('./exports/export-service.js').then((m) => m.createExportService({ db, access, store, pipeline: exportPipeline, cursors, queue })));
  // A purge removes the book's media files and its export artifacts.
  const releaseBookFiles = async (q: Tx, bookId: string) => {
    await media.releaseBookFiles(q, bookId);
    await exports.releaseBookFiles(q, bookId);
  };
  // Made at once, as the ones above: these answer some members at once too (settings, signatures, cookies).
  const billingCheckout = createBillingCheckoutService({
    db,
    config,
    audit,
    queue: jobs,
    store,
    gateway: config.billing.stripe ? createStripeGateway(config.billing.stripe) : null,
    clock: () => new Date(),
  });
  const bookDeletion = lazyService(() => import('./books/book-deletion.js').then((m) => m.createBookDeletion({ db, config, queue, releaseBookFiles, onDeleted: billingCheckout.endForDeletedBook })));
  const devices = lazyService(() => import('./devices/device-service.js').then((m) => m.createDeviceService({ db, config, guard: webhookGuard, secrets: webhookSecrets })));
  const notifications = lazyService(() => import('./subscriptions/notification-service.js').then((m) => m.createNotificationService({ db, config, queue, push: devices })));
  const webUploads = lazyService(() => import('./web-uploads/web-upload-service.js').then((m) => m.createWebUploadService({ db, config, media })));
  const submissions = lazyService(() =>
    import('./submissions/submission-service.js').then((m) => m.createSubmissionService({ db, cursors, access, views, media, queue, enqueueMail, announce: notifications.announce, webUploads })),
  );
  const accountExports = lazyService(() => import('./exports/account-export-service.js').then((m) => m.createAccountExportService({ db, pipeline: exportPipeline, queue, now })));
  const rateLimiter = lazyService(() => import('./rate-limit/rate-limiter.js').then((m) => m.createRateLimiter({ db })));
  return {
    store,
    access,
    users: lazyService(() => import('./users/user-service.js').then((m) => m.createUserService({ db, config, queue }))),
    tokens,
    sessions: createSessionService({ db, config }),
    audit,
    account: lazyService(() =>
      import('./account/account-service.js').then((m) =>
        m.createAccountService({ db, config, queue: jobs, tokens, audit, bookDeletion, submissions, releaseExports: accountExports.releaseUserExports, forgetBilling: billingCheckout.forgetUser }),
      ),
    ),
    accountExports,
    mailStreams: lazyService(() => import('./mail-streams/mail-stream-service.js').then((m) => m.createMailStreamService({ db, config, queue }))),
    rateLimiter,
    idempotency: createIdempotencyStore({ db }),
    health: lazyService(() => import('./health/health-service.js').then((m) => m.createHealthService({ db }))),
    plans: lazyService(() => import('./plans/plan-service.js').then((m) => m.createPlanService({ db }))),
    books: lazyService(() =>
      import('./books/book-service.js').then((m) => m.createBookService({ db, config, cursors, access, deletion: bookDeletion, store, queue, onPaidBookCreated: billingCheckout.bindNewBook })),
    ),
    billing: lazyService(() => import('./books/billing-service.js').then((m) => m.createBillingService({ db, access, store, manageUrl: `${config.http.publicUrl}${PORTAL_PATH}` }))),
    billingCheckout,
    quotas: lazyService(() => import('./books/quota-service.js').then((m) => m.createQuotaService({ db }))),
    bookDeletion,
    members: lazyService(() => import('./members/member-service.js').then((m) => m.createMemberService({ db, access, cursors }))),
    invitations: lazyService(async () => {
      const [{ createInvitationService }, { createInvitationDispatch }] = await Promise.all([import('./invitations/invitation-service.js'), import('./invitations/invitation-dispatch.js')]);
      return createInvitationService({ db, config, cursors, access, dispatch: createInvitationDispatch({ config, queue: jobs }) });
    }),
    channels: lazyService(() => import('./channels/channel-service.js').then((m) => m.createChannelService({ db, config, access, store }))),
    subscriptions: lazyService(() => import('./subscriptions/subscription-service.js').then((m) => m.createSubscriptionService({ db, cursors, access }))),
    meLists: lazyService(() => import('./me/me-lists-service.js').then((m) => m.createMeListsService({ db, cursors, views }))),
    notifications,
    devices,
    inbound: lazyService(() => import('./inbound/inbound-service.js').then((m) => m.createInboundService({ db, config, submissions, queue: jobs }))),
    channelMedia: lazyService(() => import('./inbound/channel-media-service.js').then((m) => m.createChannelMediaService({ db, config, media, queue }))),
    inboundEmail: lazyService(() =>
      import('./inbound-email/inbound-email-service.js').then((m) => m.createInboundEmailService({ db, config, store, media, submissions, rateLimiter, queue: jobs, enqueueMail })),
    ),
    submissions,
    media,
    webUploads,
    mediaProcessing: lazyService(async () => {
      const [{ createMediaProcessing }, { createClamavScanner }] = await Promise.all([import('./media/media-processing.js'), import('../media-tools/virus-scanner.js')]);
      return createMediaProcessing({ db, config, store, scanner: config.media.clamav ? createClamavScanner(config.media.clamav) : null, onProcessed: transcriptions.onMediaProcessed });
    }),
    transcriptions,
    shareCards: lazyService(() => import('./media/share-cards.js').then((m) => m.createShareCards({ db, store }))),
    exports,
    exportPipeline,
    playLinks: lazyService(() => import('./exports/play-links.js').then((m) => m.createPlayLinks({ db, store, now }))),
    events: lazyService(() => import('./events/event-service.js').then((m) => m.createEventService({ db, cursors }))),
    webhookEndpoints: createWebhookEndpointService({ db, config, cursors, guard: webhookGuard, secrets: webhookSecrets }),
    webhookDispatcher: createWebhookDispatcher({ db, config, queue: jobs, guard: webhookGuard, secrets: webhookSecrets, clock: deps.webhooks?.now ?? (() => new Date()) }, deps.webhooks),
  };
}
export type Services = ReturnType<typeof createServices>;

/** What the app is built from; `services` when the process built them already (shared with its job queue). */
export interface AppDeps extends ServiceDeps {
  services?: Services;
}

/** What a route module is handed: only the services (and config for HTTP concerns). */
export interface RouteContext {
  config: Config;
  services: Services;
}
