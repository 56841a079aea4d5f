import type { InvitationLinkView } from '../../services/invitations/invitation-service.js';
import { html, type SafeHtml } from '../html.js';
import { textLanguage, type Translator } from '../i18n/i18n.js';
import { renderPage } from '../layout.js';
import { CSRF_FIELD } from '../web-security.js';

/** A book's title, isolated, with its own language and direction (from its letters, else the book's language). */
function own(text: string, bookLanguage?: string | null): SafeHtml {
  const { lang, dir } = textLanguage(text, bookLanguage);
  return html`<bdi dir="${dir}"${lang ? html` lang="${lang}"` : ''}>${text}</bdi>`;
}
function ownAttrs(text: string, bookLanguage?: string | null): SafeHtml {
  const { lang, dir } = textLanguage(text, bookLanguage);
  return html` dir="${dir}"${lang ? html` lang="${lang}"` : ''}`;
}

/** A pending invitation: accept in one click when signed in, else sign in or sign up and come back here. */
export function invitationPage(i: Translator, o: { view: InvitationLinkView; csrf: string; path: string; signedInAs: string | null }): string {
  const v = o.view;
  const next = encodeURIComponent(o.path);
  const role = v.role === 'admin' ? 'admin' : 'contributor';
  const who = v.inviterName ? i.h('invite.who', { inviter: v.inviterName, role }) : i.h('invite.whoAnon', { role });
  const action = o.signedInAs
    ? html`<form method="post" action="${o.path}">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <div class="actions"><button type="submit" class="wide">${i.t('invite.accept')}</button></div>
  </form>
  <p class="hint center">${i.h('invite.acceptingAs', { email: o.signedInAs })}</p>`
    : html`<p>${i.t('invite.toAccept')}${v.invitedEmail ? html` ${i.h('invite.forAddress', { email: v.invitedEmail })}` : ''}</p>
  <div class="actions stack">
    <a class="button wide" href="/accounts/signup/?next=${next}">${i.t('invite.createAccount')}</a>
    <a class="button secondary wide" href="/accounts/login/?next=${next}">${i.t('invite.haveAccount')}</a>
  </div>`;
  return renderPage({
    i,
    title: i.t('invite.pageTitle', { title: v.book.title }),
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite">
  <p class="eyebrow">${i.t('invite.eyebrow')}</p>
  <h1${ownAttrs(v.book.title, v.book.language)}>${v.book.title}</h1>
  ${v.book.subtitle ? html`<p class="lead"${ownAttrs(v.book.subtitle, v.book.language)}>${v.book.subtitle}</p>` : ''}
  <p>${who} ${i.t('invite.does', { role })}</p>
  ${v.yourRole ? html`<p class="alert success">${i.t('invite.already', { role: v.yourRole })}</p>` : ''}
  ${action}
  <p class="hint center">${i.t('invite.openUntil', { date: new Date(v.expiresAt) })}</p>
</section>`,
  });
}

/** After accepting (or on a later visit by the same person): the welcome, and where to go next. */
export function welcomePage(
  i: Translator,
  o: { view: Pick<InvitationLinkView, 'book'>; role: string; csrf: string; signedInAs: string; webFormPath: string | null },
): string {
  const role = o.role === 'admin' ? 'admin' : 'contributor';
  return renderPage({
    i,
    title: i.t('welcome.title', { title: o.view.book.title }),
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite" aria-labelledby="welcome-title">
  <p class="eyebrow">${i.t('welcome.eyebrow')}</p>
  <h1 id="welcome-title">${i.h('welcome.title', { title: own(o.view.book.title, o.view.book.language) })}</h1>
  <p class="alert success" role="status">${i.t('welcome.now', { role })}</p>
  <p>${i.t('invite.does', { role })}</p>
  <div class="actions stack">
    ${o.webFormPath ? html`<a class="button wide" href="${o.webFormPath}">${i.t('welcome.share')}</a>` : ''}
    <a class="button secondary wide" href="/">${i.t('welcome.account')}</a>
  </div>
</section>`,
  });
}

/** An invitation that cannot be used: unknown (404), expired, withdrawn or used by someone else (410), a full book (402). */
export function invitationProblemPage(i: Translator, o: { title: string; message: string; csrf: string; signedInAs: string | null }): string {
  return renderPage({
    i,
    title: o.title,
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite">
  <p class="eyebrow">${i.t('invite.eyebrow')}</p>
  <h1>${o.title}</h1>
  <p>${o.message}</p>
</section>`,
  });
}

/** An email invitation opened by someone signed in with another address: which address it is for, and how to use it. */
export function otherAddressPage(i: Translator, o: { invitedEmail: string; csrf: string; signedInAs: string; path: string }): string {
  return renderPage({
    i,
    title: i.t('other.title'),
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card invite">
  <p class="eyebrow">${i.t('invite.eyebrow')}</p>
  <h1>${i.t('other.title')}</h1>
  <p>${i.h('other.sentTo', { email: o.invitedEmail, you: o.signedInAs })}</p>
  <p>${i.h('other.how', { email: o.invitedEmail })}</p>
  <form method="post" action="/accounts/logout/">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <div class="actions"><button type="submit" class="secondary wide">${i.t('nav.signOut')}</button></div>
  </form>
</section>`,
  });
}
