import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../errors.js';
import type { RouteContext } from '../../services/index.js';
import { renderMessagePage, sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, ensureCsrfToken, formField, safeNextPath } from '../web-security.js';
import { beginSession, currentSession } from '../web-session.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { checkMailPage, confirmPage, signupPage, type AccountError } from './account-views.js';
import { limitSignIn, limitSignUp, MAX_PASSWORD_LENGTH, setDeviceCookie, signUpMailAllowed } from './sign-in.js';

const MAX_NAME_LENGTH = 150;
const INVITATION_PATH = /^\/invitations\/([A-Za-z0-9_-]{20,128})\/$/;

type ConfirmParams = { token: string };

/**
 * Sign-up (/accounts/signup/). From the page, an address is confirmed by a
 * mailed link before its account exists, and the page answers the same
 * whether or not the address already has an account (that address's owner
 * gets a note instead): the form tells no one who has an account. A sign-up
 * that comes from an email invitation's link (`next` is the link) with the
 * invited address needs no mail: the link proved the address.
 */
export function registerSignupPage(web: FastifyInstance, ctx: RouteContext) {
  const languageOf = (request: FastifyRequest, reply: FastifyReply) => requestTranslator(request, reply, { secureCookies: ctx.config.http.secureCookies });

  /** The address of the pending email invitation `next` leads to, if it does. */
  async function invitedEmailOf(next: string): Promise<string | null> {
    const token = INVITATION_PATH.exec(next)?.[1];
    return token ? ctx.services.invitations.invitedEmail(token) : null;
  }

  async function signedUp(request: FastifyRequest, reply: FastifyReply, user: { id: string; email: string }, next: string, i: Translator) {
    await beginSession(request, reply, ctx, user.id);
    setDeviceCookie(reply, ctx, user.email);
    await ctx.services.audit.record('web_signed_up', { userId: user.id, requestId: String(request.id) });
    // The onboarding stream: a welcome mail now, a follow-up in a few days, in this page's language.
    await ctx.services.mailStreams.startOnboarding(user.id, i.lang);
    return reply.redirect(next, 303);
  }

  web.get('/accounts/signup/', PAGE_ROUTE, async (request, reply) => {
    // Where to go once signed up (an invitation link, say): a path on this site only, as for sign-in.
    const next = safeNextPath((request.query as Record<string, unknown>).next);
    if (await currentSession(request, ctx)) return reply.redirect(next, 303);
    const invitedEmail = await invitedEmailOf(next);
    return sendHtml(reply, 200, signupPage(languageOf(request, reply), { csrf: ensureCsrfToken(request, reply, ctx.config), next, invitedEmail }));
  });

  web.post('/accounts/signup/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    await limitSignUp(ctx, request.ip);
    const email = (formField(request, 'email') ?? '').trim();
    const password = formField(request, 'password') ?? '';
    const firstName = (formField(request, 'first_name') ?? '').trim();
    const lastName = (formField(request, 'last_name') ?? '').trim();
    const next = safeNextPath(formField(request, 'next'));
    const invitedEmail = await invitedEmailOf(next);
    const i = languageOf(request, reply);
    const again = (status: number, error: AccountError) =>
      sendHtml(reply, status, signupPage(i, { csrf: ensureCsrfToken(request, reply, ctx.config), next, error, email, firstName, lastName, invitedEmail }));

    if (password.length > MAX_PASSWORD_LENGTH) return again(400, { field: 'password', message: i.t('error.passwordLong', { max: MAX_PASSWORD_LENGTH }) });
    if (firstName.length > MAX_NAME_LENGTH || lastName.length > MAX_NAME_LENGTH) {
      return again(400, { field: firstName.length > MAX_NAME_LENGTH ? 'first_name' : 'last_name', message: i.t('error.namesLong', { max: MAX_NAME_LENGTH }) });
    }
    const input = { email, password, firstName, lastName };
    try {
      if (invitedEmail && email.toLowerCase() === invitedEmail) {
        try {
          return await signedUp(request, reply, await ctx.services.users.createUser(input), next, i);
        } catch (err) {
          // The address has an account already: answered below as any sign-up of a taken address.
          if (!(err instanceof AppError && err.code === 'conflict')) throw err;
        }
      }
      const mailAllowed = await signUpMailAllowed(ctx, email);
      await ctx.services.users.requestSignUp({ ...input, nextPath: next, mailAllowed, language: i.lang });
    } catch (err) {
      // The service's messages are written for people ("Enter a valid email address.").
      if (err instanceof AppError && err.code === 'validation_failed') {
        const { reason, field } = (err.details as { reason?: string; field?: string } | null) ?? {};
        const known = (['email', 'password', 'first_name', 'last_name'] as const).find((f) => f === field);
        // The service's reasons, in the page's language.
        const message =
          reason === 'control_characters'
            ? i.t('error.namesControl')
            : known === 'password'
              ? i.t('error.passwordShort', { min: 8 })
              : known === 'first_name' || known === 'last_name'
                ? i.t('error.namesLong', { max: MAX_NAME_LENGTH })
                : known === 'email'
                  ? i.t('error.emailInvalid')
                  : err.message;
        return again(reason === 'control_characters' ? 422 : err.status, { field: known ?? 'email', message });
      }
      throw err;
    }
    return sendHtml(reply, 200, checkMailPage(i, { csrf: ensureCsrfToken(request, reply, ctx.config), email: email.toLowerCase() }));
  });

  const confirmPath = (token: string) => `/accounts/confirm/${encodeURIComponent(token)}/`;
  const unknownLink = (request: FastifyRequest, reply: FastifyReply) => {
    request.errorCode = 'not_found';
    const i = languageOf(request, reply);
    return sendHtml(
      reply,
      404,
      renderMessagePage({
        i,
        title: i.t('confirm.brokenTitle'),
        message: i.t('confirm.broken'),
        csrf: ensureCsrfToken(request, reply, ctx.config),
        link: { href: '/accounts/signup/', text: i.t('nav.signUp') },
      }),
    );
  };

  // The GET only asks for the password: link scanners fetch links, and a confirmation needs the person who signed up.
  web.get<{ Params: ConfirmParams }>('/accounts/confirm/:token/', PAGE_ROUTE, async (request, reply) => {
    let email: string;
    try {
      ({ email } = await ctx.services.users.viewSignUp(request.params.token));
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return unknownLink(request, reply);
      throw err;
    }
    return sendHtml(reply, 200, confirmPage(languageOf(request, reply), { csrf: ensureCsrfToken(request, reply, ctx.config), email, path: confirmPath(request.params.token) }));
  });

  web.post<{ Params: ConfirmParams }>('/accounts/confirm/:token/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    const { token } = request.params;
    const password = formField(request, 'password') ?? '';
    let email: string;
    try {
      ({ email } = await ctx.services.users.viewSignUp(token));
      // A password is tried here: the sign-in budget applies.
      await limitSignIn(ctx, request, email);
      if (password.length > MAX_PASSWORD_LENGTH) throw errors.validation('That is not the password you chose when you signed up.', null);
      const { user, nextPath } = await ctx.services.users.confirmSignUp(token, password);
      return await signedUp(request, reply, user, safeNextPath(nextPath ?? undefined), languageOf(request, reply));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'not_found') return unknownLink(request, reply);
      if (err.code === 'validation_failed') {
        request.errorCode = err.code;
        const i = languageOf(request, reply);
        return sendHtml(reply, 400, confirmPage(i, { csrf: ensureCsrfToken(request, reply, ctx.config), email: email!, path: confirmPath(token), error: i.t('error.notYourPassword') }));
      }
      if (err.code === 'conflict') {
        request.errorCode = err.code;
        const i = languageOf(request, reply);
        return sendHtml(
          reply,
          409,
          renderMessagePage({ i, title: i.t('confirm.existsTitle'), message: i.t('confirm.exists'), csrf: ensureCsrfToken(request, reply, ctx.config), link: { href: '/accounts/login/', text: i.t('nav.signIn') } }),
        );
      }
      throw err;
    }
  });
}
