import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { RouteContext } from '../../services/index.js';
import { SESSION_COOKIE } from '../../services/sessions/session-service.js';
import { sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, clearSessionCookie, ensureCsrfToken, safeNextPath } from '../web-security.js';
import { currentSession } from '../web-session.js';
import { INVITATION_TTL_DAYS } from '../../services/invitations/invitation-types.js';
import { requestTranslator } from '../i18n/i18n.js';
import { invitationPage, invitationProblemPage, otherAddressPage, welcomePage } from './invitation-views.js';

type Params = { token: string };

/** What each refusal of a link looks like to the person holding it: its status, and its title and words in the catalogue. */
const PROBLEMS: Record<string, { status: number; key: 'notFound' | 'expired' | 'revoked' | 'accepted' | 'full' | 'paused' }> = {
  not_found: { status: 404, key: 'notFound' },
  invitation_expired: { status: 410, key: 'expired' },
  invitation_revoked: { status: 410, key: 'revoked' },
  invitation_accepted: { status: 410, key: 'accepted' },
  member_limit_exceeded: { status: 402, key: 'full' },
  book_grace_period: { status: 403, key: 'paused' },
};

/**
 * The acceptance link of an invitation (/invitations/{token}/), sent by email.
 * An email invitation is accepted only by the account with the invited
 * address (anyone else signed in is told which address it is for, and
 * nothing changes); a phone one by whoever holds the link, once. A signed-out visitor signs in or up and comes back here
 * (`next`). Accepting is a POST with the CSRF token; the invitation service
 * holds the rules (member cap, states, grace period).
 */
export function registerInvitationPage(web: FastifyInstance, ctx: RouteContext) {
  const pathOf = (token: string) => `/invitations/${encodeURIComponent(token)}/`;

  const languageOf = (request: FastifyRequest, reply: FastifyReply, bookLanguage?: string | null) =>
    requestTranslator(request, reply, { secureCookies: ctx.config.http.secureCookies, bookLanguage });

  async function problem(request: FastifyRequest, reply: FastifyReply, code: string, signedInAs: string | null, bookLanguage?: string | null) {
    const p = PROBLEMS[code];
    request.errorCode = code;
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const i = languageOf(request, reply, bookLanguage);
    const title = i.t(`problem.${p.key}.title`);
    const message = i.t(`problem.${p.key}`, { days: INVITATION_TTL_DAYS });
    return sendHtml(reply, p.status, invitationProblemPage(i, { title, message, csrf, signedInAs }));
  }

  /** The book's form (with its key) for its new member, when the book takes memories over the web. */
  async function webFormPath(slug: string): Promise<string | null> {
    return (await ctx.services.channels.webFormPathFor(slug)) ?? null;
  }

  web.get<{ Params: Params }>('/invitations/:token/', PAGE_ROUTE, async (request, reply) => {
    const session = await currentSession(request, ctx);
    if (!session && request.cookies[SESSION_COOKIE]) clearSessionCookie(reply, ctx.config);
    const email = session?.user.email ?? null;
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const { token } = request.params;
    let view;
    try {
      view = await ctx.services.invitations.viewInvitationLink(token, session ? { id: session.user.id, email: session.user.email } : null);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return problem(request, reply, err.code, email);
      throw err;
    }
    if (view.status === 'pending' && view.forAnotherAccount && session) {
      // An email invitation is its address's: someone else signed in is told which address, and nothing changes.
      request.errorCode = 'forbidden';
      return sendHtml(reply, 403, otherAddressPage(languageOf(request, reply, view.book.language), { invitedEmail: view.invitedEmail ?? '', csrf, signedInAs: session.user.email, path: pathOf(token) }));
    }
    if (view.status === 'pending') {
      return sendHtml(reply, 200, invitationPage(languageOf(request, reply, view.book.language), { view, csrf, path: pathOf(token), signedInAs: email }));
    }
    if (view.acceptedByYou && session) {
      const role = view.yourRole ?? view.role;
      return sendHtml(reply, 200, welcomePage(languageOf(request, reply, view.book.language), { view, role, csrf, signedInAs: session.user.email, webFormPath: await webFormPath(view.book.slug) }));
    }
    const code = view.status === 'expired' ? 'invitation_expired' : view.status === 'revoked' ? 'invitation_revoked' : 'invitation_accepted';
    return problem(request, reply, code, email, view.book.language);
  });

  web.post<{ Params: Params }>('/invitations/:token/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    const path = pathOf(request.params.token);
    const session = await currentSession(request, ctx);
    // Signed out meanwhile: sign in, then back to the invitation to accept it.
    if (!session) return reply.redirect(`/accounts/login/?next=${encodeURIComponent(safeNextPath(path))}`, 303);
    try {
      const accepted = await ctx.services.invitations.acceptInvitationLink({ id: session.user.id, email: session.user.email }, request.params.token);
      if (!accepted.alreadyAccepted) {
        await ctx.services.audit.record('invitation_accepted', { userId: session.user.id, requestId: String(request.id), data: { book: accepted.book.slug, via: 'web' } });
      }
    } catch (err) {
      if (err instanceof AppError && err.code === 'forbidden') {
        // The page (GET) says which address the invitation is for.
        request.errorCode = err.code;
        return reply.redirect(path, 303);
      }
      if (err instanceof AppError && err.code in PROBLEMS) return problem(request, reply, err.code, session.user.email);
      throw err;
    }
    // Back to the link, which now welcomes its member (a reload does not post again).
    return reply.redirect(path, 303);
  });
}
