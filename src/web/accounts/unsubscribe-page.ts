import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { html } from '../html.js';
import { renderMessagePage, renderPage, sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, CSRF_FIELD, ensureCsrfToken, formField } from '../web-security.js';
import { requestTranslator } from '../i18n/i18n.js';

/**
 * The unsubscribe link people click in an onboarding mail. The GET only shows
 * a button (link scanners and previews fetch links, and must not unsubscribe
 * anyone); the button's POST does it. Mail programs use the one-click API
 * route of the List-Unsubscribe header instead (RFC 8058). The mail's link
 * carries its language (`lang`), kept for the button's answer.
 */
export function registerUnsubscribePage(web: FastifyInstance, ctx: RouteContext) {
  web.get('/accounts/unsubscribe/', PAGE_ROUTE, async (request, reply) => {
    const i = requestTranslator(request, reply, { secureCookies: ctx.config.http.secureCookies });
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const token = (request.query as Record<string, unknown>).token;
    return sendHtml(
      reply,
      200,
      renderPage({
        i,
        title: i.t('unsubscribe.title'),
        csrf,
        narrow: true,
        body: html`<section class="card">
  <h1>${i.t('unsubscribe.heading')}</h1>
  <p>${i.t('unsubscribe.lead')}</p>
  <form method="post" action="/accounts/unsubscribe/">
    <input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
    <input type="hidden" name="token" value="${typeof token === 'string' ? token : ''}">
    <div class="actions"><button type="submit">${i.t('unsubscribe.submit')}</button></div>
  </form>
</section>`,
      }),
    );
  });

  web.post('/accounts/unsubscribe/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    // A missing or unknown token is 401, shown as a page by the web error handler.
    const result = await ctx.services.mailStreams.unsubscribeWithToken('onboarding', formField(request, 'token'));
    const i = requestTranslator(request, reply, { secureCookies: ctx.config.http.secureCookies });
    return sendHtml(
      reply,
      200,
      renderMessagePage({
        i,
        title: i.t('unsubscribe.doneTitle'),
        message: i.t(result.already_unsubscribed ? 'unsubscribe.already' : 'unsubscribe.done'),
        csrf: ensureCsrfToken(request, reply, ctx.config),
      }),
    );
  });
}
