import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { RouteContext } from '../../services/index.js';
import { SESSION_COOKIE } from '../../services/sessions/session-service.js';
import { sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, clearSessionCookie, ensureCsrfToken, safeNextPath } from '../web-security.js';
import { currentSession } from '../web-session.js';
import { invitationPage, invitationProblemPage, otherAddressPage, welcomePage } from './invitation-views.js';

type Params = { token: string };

/** What each refusal of a link looks like to the person holding it. */
const PROBLEMS: Record<string, { status: number; title: string }> = {
  not_found: { status: 404, title: 'We couldn’t find this invitation' },
  invitation_expired: { status: 410, title: 'This invitation has expired' },
  invitation_revoked: { status: 410, title: 'This invitation was withdrawn' },
  invitation_accepted: { status: 410, title: 'This invitation has already been used' },
  member_limit_exceeded: { status: 402, title: 'This book is full' },
  book_grace_period: { status: 403, title: 'This book is paused' },
};

const MESSAGES: Record<string, string> = {
  not_found: 'The link may be incomplete: check that you opened the whole link from your invitation, or ask for a new one.',
  invitation_expired: 'Invitations stay open for 14 days. Ask the person who invited you to send a new one.',
  invitation_revoked: 'The book’s owner or an admin withdrew it. If you think that was a mistake, ask them for a new one.',
  invitation_accepted: 'Someone has already accepted it. If that was you, sign in with the account you used; otherwise ask for an invitation of your own.',
  member_limit_exceeded:
    'The book already has as many members as its plan allows, so you could not join. Let the person who invited you know: they can make room, or move the book to a bigger plan.',
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

  async function problem(request: FastifyRequest, reply: FastifyReply, err: AppError, signedInAs: string | null) {
    const p = PROBLEMS[err.code];
    request.errorCode = err.code;
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    return sendHtml(reply, p.status, invitationProblemPage({ title: p.title, message: MESSAGES[err.code] ?? err.message, csrf, signedInAs }));
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
      if (err instanceof AppError && err.code === 'not_found') return problem(request, reply, err, email);
      throw err;
    }
    if (view.status === 'pending' && view.forAnotherAccount && session) {
      // An email invitation is its address's: someone else signed in is told which address, and nothing changes.
      request.errorCode = 'forbidden';
      return sendHtml(reply, 403, otherAddressPage({ invitedEmail: view.invitedEmail ?? '', csrf, signedInAs: session.user.email, path: pathOf(token) }));
    }
    if (view.status === 'pending') {
      return sendHtml(reply, 200, invitationPage({ view, csrf, path: pathOf(token), signedInAs: email }));
    }
    if (view.acceptedByYou && session) {
      const role = view.yourRole ?? view.role;
      return sendHtml(reply, 200, welcomePage({ view, role, csrf, signedInAs: session.user.email, webFormPath: await webFormPath(view.book.slug) }));
    }
    const code = view.status === 'expired' ? 'invitation_expired' : view.status === 'revoked' ? 'invitation_revoked' : 'invitation_accepted';
    const gone = new AppError(code, MESSAGES[code]);
    return problem(request, reply, gone, email);
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
      if (err instanceof AppError && err.code in PROBLEMS) return problem(request, reply, err, session.user.email);
      throw err;
    }
    // Back to the link, which now welcomes its member (a reload does not post again).
    return reply.redirect(path, 303);
  });
}
