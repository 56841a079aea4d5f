import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { noteOutage, outageOf } from '../http/dependency-outage.js';
import type { RouteContext } from '../services/index.js';
import { registerLoginPage } from './accounts/login-page.js';
import { registerLogoutPage } from './accounts/logout-page.js';
import { registerCheckoutPage } from './billing/checkout-page.js';
import { registerSignupPage } from './accounts/signup-page.js';
import { registerUnsubscribePage } from './accounts/unsubscribe-page.js';
import { registerWebFormPage } from './contribute/web-form-page.js';
import { registerWebUploads } from './contribute/web-uploads.js';
import { registerHomePage } from './home/home-page.js';
import { registerInvitationPage } from './invitations/invitation-page.js';
import { registerPlayPage } from './play/play-page.js';
import { renderMessagePage, sendHtml } from './layout.js';
import { registerTokensPage } from './settings/tokens-page.js';
import { registerStaticRoutes } from './static/static-routes.js';
import { ensureCsrfToken, setPageSecurityHeaders } from './web-security.js';

/** Server-rendered pages outside /api/v1: sign up, sign in, sign out, API tokens, invitation links, books' contributor forms. */
export async function registerWebPages(web: FastifyInstance, ctx: RouteContext) {
  web.addHook('onRequest', async (_request, reply) => {
    setPageSecurityHeaders(reply);
    reply.header('cache-control', 'no-store');
  });
  web.setErrorHandler((err: FastifyError | AppError, request, reply) => renderError(err, request, reply, ctx));

  registerStaticRoutes(web);
  registerHomePage(web, ctx);
  registerSignupPage(web, ctx);
  registerLoginPage(web, ctx);
  registerLogoutPage(web, ctx);
  registerTokensPage(web, ctx);
  registerUnsubscribePage(web, ctx);
  registerInvitationPage(web, ctx);
  registerCheckoutPage(web, ctx);
  registerPlayPage(web, ctx);
  await registerWebFormPage(web, ctx);
  await registerWebUploads(web, ctx);
}

/** People read these answers, so errors are pages, not the API's JSON envelope. */
function renderError(raw: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply, ctx: RouteContext) {
  const csrf = ensureCsrfToken(request, reply, ctx.config);
  const back = { href: request.url.split('?')[0], text: 'Back to the form' };
  // A database that is down is an outage, not our fault: 503 with Retry-After, as the API answers it.
  const err = outageOf(raw) ?? raw;
  if (err instanceof AppError) {
    if (err.dependency) {
      noteOutage(request, err);
      request.errorCode = err.code;
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return sendHtml(reply, 503, renderMessagePage({ title: 'Back in a moment', message: 'The service cannot save or show this just now. Please try again in a minute.', csrf }));
    }
    request.errorCode = err.code;
    for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    if (err.code === 'csrf_failed') {
      return sendHtml(reply, 403, renderMessagePage({
        title: 'Please send the form again',
        // Plain words: the technical reason (which token, which header) is in the log, not on the page.
        message: 'We could not be sure this form came from you: the page may have been open a long time, or your browser did not send its cookie. Go back, reload the page and send it again. If this keeps happening, allow cookies for this site.',
        csrf,
        link: back,
      }));
    }
    if (err.code === 'rate_limited') {
      return sendHtml(reply, 429, renderMessagePage({ title: 'Too many attempts', message: err.message, csrf, link: back }));
    }
    return sendHtml(reply, err.status, renderMessagePage({ title: 'Request not accepted', message: err.message, csrf }));
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status < 500) {
    request.errorCode = 'bad_request';
    return sendHtml(reply, status, renderMessagePage({ title: 'Request not accepted', message: 'The form could not be read. Reload the page and try again.', csrf, link: back }));
  }
  // Our fault: full detail in the log, only the request id on the page.
  request.log.error({ err, request_id: request.id }, 'unhandled error');
  request.errorCode = 'internal_error';
  return sendHtml(reply, 500, renderMessagePage({
    title: 'Something went wrong',
    message: `An internal error occurred. Quote request ${String(request.id)} when reporting it.`,
    csrf,
  }));
}
