import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import type { RouteContext } from '../../services/index.js';
import { sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, ensureCsrfToken, formField, safeNextPath } from '../web-security.js';
import { beginSession, currentSession } from '../web-session.js';
import { signupPage } from './account-views.js';
import { limitSignUp, MAX_PASSWORD_LENGTH } from './sign-in.js';

const MAX_NAME_LENGTH = 150;

export function registerSignupPage(web: FastifyInstance, ctx: RouteContext) {
  web.get('/accounts/signup/', PAGE_ROUTE, async (request, reply) => {
    // Where to go once signed up (an invitation link, say): a path on this site only, as for sign-in.
    const next = safeNextPath((request.query as Record<string, unknown>).next);
    if (await currentSession(request, ctx)) return reply.redirect(next, 303);
    return sendHtml(reply, 200, signupPage({ csrf: ensureCsrfToken(request, reply, ctx.config), next }));
  });

  web.post('/accounts/signup/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    await limitSignUp(ctx, request.ip);
    const email = (formField(request, 'email') ?? '').trim();
    const password = formField(request, 'password') ?? '';
    const firstName = (formField(request, 'first_name') ?? '').trim();
    const lastName = (formField(request, 'last_name') ?? '').trim();
    const next = safeNextPath(formField(request, 'next'));
    const again = (status: number, error: string) =>
      sendHtml(reply, status, signupPage({ csrf: ensureCsrfToken(request, reply, ctx.config), next, error, email, firstName, lastName }));

    if (password.length > MAX_PASSWORD_LENGTH) return again(400, `The password may be at most ${MAX_PASSWORD_LENGTH} characters.`);
    if (firstName.length > MAX_NAME_LENGTH || lastName.length > MAX_NAME_LENGTH) {
      return again(400, `Names may be at most ${MAX_NAME_LENGTH} characters.`);
    }
    let userId: string;
    try {
      userId = (await ctx.services.users.createUser({ email, password, firstName, lastName })).id;
    } catch (err) {
      // The service's messages are written for people ("Enter a valid email address.").
      if (err instanceof AppError && (err.code === 'validation_failed' || err.code === 'conflict')) return again(err.status, err.message);
      throw err;
    }
    await beginSession(request, reply, ctx, userId);
    await ctx.services.audit.record('web_signed_up', { userId, requestId: String(request.id) });
    // The onboarding stream: a welcome mail now, a follow-up in a few days.
    await ctx.services.mailStreams.startOnboarding(userId);
    return reply.redirect(next, 303);
  });
}
