import type { Config } from '../config/config.js';
import type { Db, Tx } from '../db/client.js';
import { createCursorCodec } from '../db/pagination.js';
import type { MailMessage } from '../mail/mailer.js';
import type { JobSender } from '../jobs/job-catalog.js';
import { createAccountService } from './account/account-service.js';
import { createMailStreamService } from './mail-streams/mail-stream-service.js';
import { createAuditService } from './audit/audit-service.js';
import { createBillingService } from './books/billing-service.js';
import { createBillingCheckoutService, PORTAL_PATH } from './billing-checkout/billing-checkout-service.js';
import { createStripeGateway } from './billing-checkout/stripe-gateway.js';
import { createBookAccess } from './books/book-access.js';
import { createBookDeletion } from './books/book-deletion.js';
import { createBookService } from './books/book-service.js';
import { createQuotaService } from './books/quota-service.js';
import { createHealthService } from './health/health-service.js';
import { createIdempotencyStore } from './idempotency/idempotency-store.js';
import { createMemberService } from './members/member-service.js';
import { createInvitationDispatch } from './invitations/invitation-dispatch.js';
import { createInvitationService } from './invitations/invitation-service.js';
import { createChannelService } from './channels/channel-service.js';
import { createChannelMediaService } from './inbound/channel-media-service.js';
import { createInboundService } from './inbound/inbound-service.js';
import { createInboundEmailService } from './inbound-email/inbound-email-service.js';
import { createNotificationService } from './subscriptions/notification-service.js';
import { createMeListsService } from './me/me-lists-service.js';
import { createSubscriptionService } from './subscriptions/subscription-service.js';
import { createPlanService } from './plans/plan-service.js';
import { createRateLimiter } from './rate-limit/rate-limiter.js';
import { createSessionService } from './sessions/session-service.js';
import { createSubmissionService } from './submissions/submission-service.js';
import { createTokenService } from './tokens/token-service.js';
import { createUserService } from './users/user-service.js';
import { createMediaService } from './media/media-service.js';
import { createMediaProcessing } from './media/media-processing.js';
import { createMediaViews } from './media/media-views.js';
import { createShareCards } from './media/share-cards.js';
import { createExportService } from './exports/export-service.js';
import { createAccountExportService } from './exports/account-export-service.js';
import { createAccountExportVariant } from './exports/account-export-variant.js';
import { createBookExportVariant } from './exports/book-export-variant.js';
import { createExportPipeline } from './exports/export-pipeline.js';
import { createEventService } from './events/event-service.js';
import { createWebhookDispatcher, type DispatcherOptions } from './webhook-endpoints/dispatcher.js';
import { createWebhookEndpointService } from './webhook-endpoints/endpoint-service.js';
import { createSecretBox } from './webhook-endpoints/signing.js';
import { createUrlGuard, type Resolver } from './webhook-endpoints/url-guard.js';
import { createDeviceService } from './devices/device-service.js';
import { createTranscriptionService } from './transcriptions/transcription-service.js';
import { createWebUploadService } from './web-uploads/web-upload-service.js';
import { createPlayLinks } from './exports/play-links.js';
import { createObjectStore } from '../storage/index.js';
import { createClamavScanner } from '../media-tools/virus-scanner.js';
import { createTranscriber } from '../media-tools/transcriber.js';
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
  const access = createBookAccess({ db });
  const tokens = createTokenService({ db });
  const audit = createAuditService({ db });
  const store = deps.store ?? createObjectStore(config);
  const views = createMediaViews({ store });
  const media = createMediaService({ db, config, access, store, views, queue });
  const transcriptions = createTranscriptionService({ db, config, access, store, queue, transcriber: config.transcription ? createTranscriber(config.transcription) : null });
  // One pipeline for both kinds of export; each kind renders its own file.
  const exportPipeline = createExportPipeline({
    db,
    store,
    queue,
    now,
    variants: {
      book: createBookExportVariant({ db, store, now, paperCaliperUm: config.printPaperCaliperUm, publicUrl: config.http.publicUrl }),
      account: createAccountExportVariant({ db, store, now }),
    },
  });
  const exports = createExportService({ db, access, store, pipeline: exportPipeline, cursors, queue });
  // A purge removes the book's media files and its export artifacts.
  const releaseBookFiles = async (q: Tx, bookId: string) => {
    await media.releaseBookFiles(q, bookId);
    await exports.releaseBookFiles(q, bookId);
  };
  const billingCheckout = createBillingCheckoutService({
    db,
    config,
    audit,
    queue: jobs,
    store,
    gateway: config.billing.stripe ? createStripeGateway(config.billing.stripe) : null,
    clock: () => new Date(),
  });
  const bookDeletion = createBookDeletion({ db, config, queue, releaseBookFiles, onDeleted: billingCheckout.endForDeletedBook });
  const webhookGuard = createUrlGuard(config.webhookAllowPrivate, deps.webhooks?.resolver);
  const webhookSecrets = createSecretBox(config.secretKey);
  const devices = createDeviceService({ db, config, guard: webhookGuard, secrets: webhookSecrets });
  const notifications = createNotificationService({ db, config, queue, push: devices });
  const webUploads = createWebUploadService({ db, config, media });
  const submissions = createSubmissionService({ db, cursors, access, views, media, queue, enqueueMail, announce: notifications.announce, webUploads });
  const accountExports = createAccountExportService({ db, pipeline: exportPipeline, queue, now });
  const rateLimiter = createRateLimiter({ db });
  return {
    store,
    access,
    users: createUserService({ db, config, queue }),
    tokens,
    sessions: createSessionService({ db, config }),
    audit,
    account: createAccountService({ db, config, queue: jobs, tokens, audit, bookDeletion, submissions, releaseExports: accountExports.releaseUserExports, forgetBilling: billingCheckout.forgetUser }),
    accountExports,
    mailStreams: createMailStreamService({ db, config, queue }),
    rateLimiter,
    idempotency: createIdempotencyStore({ db }),
    health: createHealthService({ db }),
    plans: createPlanService({ db }),
    books: createBookService({ db, config, cursors, access, deletion: bookDeletion, store, queue, onPaidBookCreated: billingCheckout.bindNewBook }),
    billing: createBillingService({ db, access, store, manageUrl: `${config.http.publicUrl}${PORTAL_PATH}` }),
    billingCheckout,
    quotas: createQuotaService({ db }),
    bookDeletion,
    members: createMemberService({ db, access, cursors }),
    invitations: createInvitationService({ db, config, cursors, access, dispatch: createInvitationDispatch({ config, queue: jobs }) }),
    channels: createChannelService({ db, config, access, store }),
    subscriptions: createSubscriptionService({ db, cursors, access }),
    meLists: createMeListsService({ db, cursors, views }),
    notifications,
    devices,
    inbound: createInboundService({ db, config, submissions, queue: jobs }),
    channelMedia: createChannelMediaService({ db, config, media, queue }),
    inboundEmail: createInboundEmailService({ db, config, store, media, submissions, rateLimiter, queue: jobs, enqueueMail }),
    submissions,
    media,
    webUploads,
    mediaProcessing: createMediaProcessing({ db, config, store, scanner: config.media.clamav ? createClamavScanner(config.media.clamav) : null, onProcessed: transcriptions.onMediaProcessed }),
    transcriptions,
    shareCards: createShareCards({ db, store }),
    exports,
    exportPipeline,
    playLinks: createPlayLinks({ db, store, now }),
    events: createEventService({ db, cursors }),
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
