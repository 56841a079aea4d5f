import type { Config } from '../config/config.js';
import type { Db, Queryable } from '../db/client.js';
import type { MailMessage } from '../mail/mailer.js';
import type { Queue } from '../jobs/queue.js';
import { createCursorCodec } from '../http/lists.js';
import { createAuditService } from './audit/audit-service.js';
import { createBillingService } from './books/billing-service.js';
import { createBookDeletion } from './books/book-deletion.js';
import { createBookService } from './books/book-service.js';
import { createQuotaService } from './books/quota-service.js';
import { createIdempotencyStore } from './idempotency/idempotency-store.js';
import { createRateLimiter } from './rate-limit/rate-limiter.js';
import { createSessionService } from './sessions/session-service.js';
import { createSubmissionService } from './submissions/submission-service.js';
import { createTokenService } from './tokens/token-service.js';
import { createUserService } from './users/user-service.js';

/** What the app is built from: the process entry creates these, tests create their own. */
export interface AppDeps {
  config: Config;
  db: Db;
  /** The background job queue (started). Without it, routes that enqueue (deletion, mail) cannot run: only the OpenAPI export builds an app without one. */
  queue?: Queue;
}

export function createServices(deps: AppDeps) {
  const { db, config, queue } = deps;
  const cursors = createCursorCodec(config.secretKey);
  const enqueueMail = queue ? (message: MailMessage, tx: Queryable) => queue.send('mail.send', message, { tx }).then(() => undefined) : undefined;
  return {
    users: createUserService({ db }),
    tokens: createTokenService({ db }),
    sessions: createSessionService({ db }),
    audit: createAuditService({ db }),
    rateLimiter: createRateLimiter({ db }),
    idempotency: createIdempotencyStore({ db }),
    cursors,
    books: createBookService({ db, config, cursors }),
    billing: createBillingService({ db }),
    quotas: createQuotaService({ db }),
    bookDeletion: createBookDeletion({ db, config, queue }),
    submissions: createSubmissionService({ db, cursors, enqueueMail }),
  };
}
export type Services = ReturnType<typeof createServices>;

/** What a route module is handed. */
export interface RouteContext extends AppDeps {
  services: Services;
}
