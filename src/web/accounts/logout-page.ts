import type { FastifyInstance } from 'fastify';
import { requestTranslator } from '../i18n/i18n.js';
import type { RouteContext } from '../../services/index.js';
import { SESSION_COOKIE } from '../../services/sessions/session-service.js';
import { sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, clearSessionCookie, ensureCsrfToken } from '../web-security.js';
import { currentSession } from '../web-session.js';
import { logoutPage } from './account-views.js';

export function registerLogoutPage(web: FastifyInstance, ctx: RouteContext) {
  // GET only asks: signing out is a state change, so it needs the POST and its CSRF token.
  web.get('/accounts/logout/', PAGE_ROUTE, async (request, reply) => {
    const session = await currentSession(request, ctx);
    const i = requestTranslator(request, reply, { secureCookies: ctx.config.http.secureCookies });
    return sendHtml(reply, 200, logoutPage(i, { csrf: ensureCsrfToken(request, reply, ctx.config), email: session?.user.email ?? null }));
  });

  web.post('/accounts/logout/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie) {
      const session = await ctx.services.sessions.findSession(cookie);
      await ctx.services.sessions.endSession(cookie);
      if (session) await ctx.services.audit.record('web_signed_out', { userId: session.user.id, requestId: String(request.id) });
    }
    clearSessionCookie(reply, ctx.config);
    return reply.redirect('/accounts/login/', 303);
  });
}
