import type { InvitationLinkView } from '../../services/invitations/invitation-service.js';
import { html } from '../html.js';
import { renderPage } from '../layout.js';
import { CSRF_FIELD } from '../web-security.js';

const ROLE_TEXT: Record<string, { name: string; does: string }> = {
  contributor: { name: 'a contributor', does: 'You will be able to share memories and photos in the book.' },
  admin: { name: 'an admin', does: 'You will help run the book: invite people, and choose which memories go in.' },
  owner: { name: 'the owner', does: '' },
};

function day(ts: string): string {
  return new Date(ts).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** A pending invitation: accept in one click when signed in, else sign in or sign up and come back here. */
export function invitationPage(o: { view: InvitationLinkView; csrf: string; path: string; signedInAs: string | null }): string {
  const v = o.view;
  const role = ROLE_TEXT[v.role];
  const next = encodeURIComponent(o.path);
  const who = v.inviterName ? html`<strong>${v.inviterName}</strong> invited you` : 'You are invited';
  const forAddress = v.invitedEmail ? html` This invitation is for <strong>${v.invitedEmail}</strong>.` : '';
  const action = o.signedInAs
    ? html`<form method="post" action="${o.path}">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <div class="actions"><button type="submit" class="wide">Accept invitation</button></div>
  </form>
  <p class="hint center">Accepting as ${o.signedInAs}. Not you? Sign out from the top of the page.</p>`
    : html`<p>To accept, create a free account or sign in.${forAddress} You will come straight back here.</p>
  <div class="actions stack">
    <a class="button wide" href="/accounts/signup/?next=${next}">Create an account</a>
    <a class="button secondary wide" href="/accounts/login/?next=${next}">I already have an account</a>
  </div>`;
  return renderPage({
    title: `Invitation to ${v.book.title}`,
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite">
  <p class="eyebrow">Invitation</p>
  <h1>${v.book.title}</h1>
  ${v.book.subtitle ? html`<p class="lead">${v.book.subtitle}</p>` : ''}
  <p>${who} to join this memory book as <strong>${role.name}</strong>. ${role.does}</p>
  ${v.yourRole ? html`<p class="alert success">You are already ${ROLE_TEXT[v.yourRole]?.name ?? 'a member'} of this book; accepting keeps your role.</p>` : ''}
  ${action}
  <p class="hint center">This invitation is open until ${day(v.expiresAt)}.</p>
</section>`,
  });
}

/** After accepting (or on a later visit by the same person): the welcome, and where to go next. */
export function welcomePage(o: { view: Pick<InvitationLinkView, 'book'>; role: string; csrf: string; signedInAs: string; webFormPath: string | null }): string {
  const role = ROLE_TEXT[o.role] ?? ROLE_TEXT.contributor;
  return renderPage({
    title: `Welcome to ${o.view.book.title}`,
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite" aria-labelledby="welcome-title">
  <p class="eyebrow">You’re in</p>
  <h1 id="welcome-title">Welcome to ${o.view.book.title}</h1>
  <p class="alert success" role="status">You are now ${role.name} of this book.</p>
  <p>${role.does}</p>
  <div class="actions stack">
    ${o.webFormPath ? html`<a class="button wide" href="${o.webFormPath}">Share a memory</a>` : ''}
    <a class="button secondary wide" href="/">Your account</a>
  </div>
</section>`,
  });
}

/** An invitation that cannot be used: unknown (404), expired, withdrawn or used by someone else (410), a full book (402). */
export function invitationProblemPage(o: { title: string; message: string; csrf: string; signedInAs: string | null }): string {
  return renderPage({
    title: o.title,
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite">
  <p class="eyebrow">Invitation</p>
  <h1>${o.title}</h1>
  <p>${o.message}</p>
</section>`,
  });
}

/** An email invitation opened by someone signed in with another address: which address it is for, and how to use it. */
export function otherAddressPage(o: { invitedEmail: string; csrf: string; signedInAs: string; path: string }): string {
  return renderPage({
    title: 'This invitation is for another address',
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite">
  <p class="eyebrow">Invitation</p>
  <h1>This invitation is for another address</h1>
  <p>It was sent to <strong>${o.invitedEmail}</strong>, and only the account with that address can accept it. You are signed in as ${o.signedInAs}.</p>
  <p>If ${o.invitedEmail} is yours, sign out, then open this link again and sign in (or sign up) with it. Otherwise, ask the person who invited you to invite this address instead.</p>
  <form method="post" action="/accounts/logout/">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <div class="actions"><button type="submit" class="secondary wide">Sign out</button></div>
  </form>
</section>`,
  });
}
