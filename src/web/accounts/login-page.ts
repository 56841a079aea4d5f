import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { sendHtml } from '../layout.js';
import { requestTranslator } from '../i18n/i18n.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, ensureCsrfToken, formField, safeNextPath } from '../web-security.js';
import { beginSession, currentSession } from '../web-session.js';
import { loginPage, type AccountError } from './account-views.js';
import { limitSignIn, MAX_PASSWORD_LENGTH, setDeviceCookie } from './sign-in.js';

export function registerLoginPage(web: FastifyInstance, ctx: RouteContext) {
  const languageOf = (request: FastifyRequest, reply: FastifyReply) => requestTranslator(request, reply, { secureCookies: ctx.config.http.secureCookies });

  web.get('/accounts/login/', PAGE_ROUTE, async (request, reply) => {
    const next = safeNextPath((request.query as Record<string, unknown>).next);
    if (await currentSession(request, ctx)) return reply.redirect(next, 303);
    return sendHtml(reply, 200, loginPage(languageOf(request, reply), { csrf: ensureCsrfToken(request, reply, ctx.config), next }));
  });

  web.post('/accounts/login/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    const email = (formField(request, 'email') ?? '').trim();
    const password = formField(request, 'password') ?? '';
    const next = safeNextPath(formField(request, 'next'));
    const i = languageOf(request, reply);
    const again = (error: AccountError) => sendHtml(reply, 400, loginPage(i, { csrf: ensureCsrfToken(request, reply, ctx.config), next, error, email }));

    if (!email) return again({ field: 'email', message: i.t('error.emailMissing') });
    if (!password) return again({ field: 'password', message: i.t('error.passwordMissing') });
    await limitSignIn(ctx, request, email);
    const user = password.length <= MAX_PASSWORD_LENGTH ? await ctx.services.users.checkPassword(email, password) : undefined;
    // One message for unknown email and wrong password, so the form does not reveal who has an account.
    if (!user) return again({ field: 'email', message: i.t('error.signInMismatch') });
    await beginSession(request, reply, ctx, user.id);
    setDeviceCookie(reply, ctx, user.email);
    await ctx.services.audit.record('web_signed_in', { userId: user.id, requestId: String(request.id) });
    return reply.redirect(next, 303);
  });
}
