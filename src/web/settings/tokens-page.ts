import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { SESSION_COOKIE } from '../../services/sessions/session-service.js';
import { sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { clearSessionCookie, ensureCsrfToken, safeNextPath } from '../web-security.js';
import { currentSession } from '../web-session.js';
import { tokensPage } from './tokens-view.js';

export function registerTokensPage(web: FastifyInstance, ctx: RouteContext) {
  // Tokens are created by the page's script through POST /api/v1/auth/token/; this route only renders.
  web.get('/settings/tokens/', PAGE_ROUTE, async (request, reply) => {
    const session = await currentSession(request, ctx);
    if (!session) {
      if (request.cookies[SESSION_COOKIE]) clearSessionCookie(reply, ctx.config);
      return reply.redirect(`/accounts/login/?next=${encodeURIComponent(safeNextPath(request.url))}`, 302);
    }
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const tokens = await ctx.services.tokens.listTokens(session.user.id);
    return sendHtml(reply, 200, tokensPage({ csrf, email: session.user.email, tokens }));
  });
}
