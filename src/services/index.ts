import type { Config } from '../config/config.js';
import type { Db, Queryable } from '../db/client.js';
import { createCursorCodec } from '../db/pagination.js';
import type { MailMessage } from '../mail/mailer.js';
import type { Queue } from '../jobs/queue.js';
import { createAccountService } from './account/account-service.js';
import { createAuditService } from './audit/audit-service.js';
import { createBillingService } from './books/billing-service.js';
import { createBookAccess } from './books/book-access.js';
import { createBookDeletion } from './books/book-deletion.js';
import { createBookService } from './books/book-service.js';
import { createQuotaService } from './books/quota-service.js';
import { createHealthService } from './health/health-service.js';
import { createIdempotencyStore } from './idempotency/idempotency-store.js';
import { createMemberService } from './members/member-service.js';
import { createPlanService } from './plans/plan-service.js';
import { createRateLimiter } from './rate-limit/rate-limiter.js';
import { createSessionService } from './sessions/session-service.js';
import { createSubmissionService } from './submissions/submission-service.js';
import { createTokenService } from './tokens/token-service.js';
import { createUserService } from './users/user-service.js';

/** What the services are built from: the process entry creates these, tests create their own. */
export interface ServiceDeps {
  config: Config;
  db: Db;
  /** The background job queue. Without it, what enqueues (deletion, mail) cannot run: only the OpenAPI export builds services without one. */
  queue?: Queue;
}

/**
 * The one place the services are built: the server, the worker's job
 * handlers, the operator CLI and the tests all use these, so every rule holds
 * whichever way a change comes in.
 */
export function createServices(deps: ServiceDeps) {
  const { db, config, queue } = deps;
  const cursors = createCursorCodec(config.secretKey);
  const enqueueMail = queue ? (message: MailMessage, tx: Queryable) => queue.send('mail.send', message, { tx }).then(() => undefined) : undefined;
  const access = createBookAccess({ db });
  const tokens = createTokenService({ db });
  const audit = createAuditService({ db });
  const bookDeletion = createBookDeletion({ db, config, queue });
  return {
    access,
    users: createUserService({ db }),
    tokens,
    sessions: createSessionService({ db }),
    audit,
    account: createAccountService({ db, tokens, audit }),
    rateLimiter: createRateLimiter({ db }),
    idempotency: createIdempotencyStore({ db }),
    health: createHealthService({ db }),
    plans: createPlanService({ db }),
    books: createBookService({ db, config, cursors, access, deletion: bookDeletion }),
    billing: createBillingService({ db, access }),
    quotas: createQuotaService({ db }),
    bookDeletion,
    members: createMemberService({ db, access }),
    submissions: createSubmissionService({ db, cursors, access, enqueueMail }),
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
