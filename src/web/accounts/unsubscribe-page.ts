import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { html } from '../html.js';
import { renderMessagePage, renderPage, sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, CSRF_FIELD, ensureCsrfToken, formField } from '../web-security.js';

/**
 * The unsubscribe link people click in an onboarding mail. The GET only shows
 * a button (link scanners and previews fetch links, and must not unsubscribe
 * anyone); the button's POST does it. Mail programs use the one-click API
 * route of the List-Unsubscribe header instead (RFC 8058).
 */
export function registerUnsubscribePage(web: FastifyInstance, ctx: RouteContext) {
  web.get('/accounts/unsubscribe/', PAGE_ROUTE, async (request, reply) => {
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const token = (request.query as Record<string, unknown>).token;
    return sendHtml(
      reply,
      200,
      renderPage({
        title: 'Unsubscribe',
        csrf,
        narrow: true,
        body: html`<section class="card">
  <h1>Stop the getting-started tips?</h1>
  <p>You will get no more onboarding mail from Memory Book. Mail about your books is not affected.</p>
  <form method="post" action="/accounts/unsubscribe/">
    <input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
    <input type="hidden" name="token" value="${typeof token === 'string' ? token : ''}">
    <div class="actions"><button type="submit">Unsubscribe</button></div>
  </form>
</section>`,
      }),
    );
  });

  web.post('/accounts/unsubscribe/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    // A missing or unknown token is 401, shown as a page by the web error handler.
    const result = await ctx.services.mailStreams.unsubscribeWithToken('onboarding', formField(request, 'token'));
    return sendHtml(
      reply,
      200,
      renderMessagePage({
        title: 'Unsubscribed',
        message: result.already_unsubscribed ? 'You had already stopped the getting-started tips.' : 'Done: you will get no more getting-started tips.',
        csrf: ensureCsrfToken(request, reply, ctx.config),
      }),
    );
  });
}
