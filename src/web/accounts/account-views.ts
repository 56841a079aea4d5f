import { errorSummary, fieldAttrs, fieldMessage, type FieldError } from '../form-errors.js';
import { html } from '../html.js';
import type { Translator } from '../i18n/i18n.js';
import { renderPage } from '../layout.js';
import { CSRF_FIELD } from '../web-security.js';

export type AccountField = 'email' | 'password' | 'first_name' | 'last_name';
export type AccountError = FieldError<AccountField>;

const list = (e: AccountError | undefined): AccountError[] => (e ? [e] : []);
/** Without an error the first field takes the focus; with one, the error summary does. */
const autofocus = (errs: AccountError[]) => (errs.length ? '' : html` autofocus`);

/** `?next=` for a link between the two forms, kept only when it leads somewhere other than the default. */
function nextQuery(next: string | undefined): string {
  return next && next !== DEFAULT_NEXT ? `?next=${encodeURIComponent(next)}` : '';
}
const DEFAULT_NEXT = '/';

export function signupPage(
  i: Translator,
  o: {
    csrf: string;
    next?: string;
    error?: AccountError;
    email?: string;
    firstName?: string;
    lastName?: string;
    /** The address of the email invitation this sign-up came from: with it, no confirmation mail is needed. */
    invitedEmail?: string | null;
  },
): string {
  const errs = list(o.error);
  return renderPage({
    i,
    title: i.t('signup.title'),
    hasErrors: errs.length > 0,
    csrf: o.csrf,
    narrow: true,
    body: html`${errorSummary(errs, { heading: i.t('error.summary') })}<section class="card">
  <h1>${i.t('signup.title')}</h1>
  ${o.invitedEmail
    ? html`<p class="lead">${i.t('signup.leadInvited')}</p>
  <p class="hint">${i.h('signup.invitedFor', { email: o.invitedEmail })}</p>`
    : html`<p class="lead">${i.t('signup.lead')}</p>
  <p class="hint">${i.t('signup.confirmHint')}</p>`}
  <form method="post" action="/accounts/signup/" novalidate>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    ${o.next && o.next !== DEFAULT_NEXT ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
    <label for="email">${i.t('field.email')}</label>
    ${fieldMessage(errs, 'email', i.t('error.prefix'))}
    <input type="email" id="email" name="email" value="${o.email ?? o.invitedEmail ?? ''}" required maxlength="254" autocomplete="email" dir="ltr"${autofocus(errs)}${fieldAttrs(errs, 'email')}>
    <label for="password">${i.t('field.password')}</label>
    <p class="hint" id="password-hint">${i.t('signup.passwordHint', { min: 8 })}</p>
    ${fieldMessage(errs, 'password', i.t('error.prefix'))}
    <input type="password" id="password" name="password" required minlength="8" maxlength="1024" autocomplete="new-password"${fieldAttrs(errs, 'password', 'password-hint')}>
    <div class="row">
      <div>
        <label for="first_name">${i.t('signup.firstName')} <span class="optional">${i.t('form.optional')}</span></label>
        ${fieldMessage(errs, 'first_name', i.t('error.prefix'))}
        <input type="text" id="first_name" name="first_name" value="${o.firstName ?? ''}" maxlength="150" autocomplete="given-name" dir="auto"${fieldAttrs(errs, 'first_name')}>
      </div>
      <div>
        <label for="last_name">${i.t('signup.lastName')} <span class="optional">${i.t('form.optional')}</span></label>
        ${fieldMessage(errs, 'last_name', i.t('error.prefix'))}
        <input type="text" id="last_name" name="last_name" value="${o.lastName ?? ''}" maxlength="150" autocomplete="family-name" dir="auto"${fieldAttrs(errs, 'last_name')}>
      </div>
    </div>
    <div class="actions"><button type="submit">${i.t('signup.submit')}</button></div>
  </form>
</section>
<p class="foot">${i.t('signup.haveAccount')} <a href="/accounts/login/${nextQuery(o.next)}">${i.t('nav.signIn')}</a></p>`,
  });
}

export function loginPage(i: Translator, o: { csrf: string; next: string; error?: AccountError; email?: string }): string {
  const errs = list(o.error);
  return renderPage({
    i,
    title: i.t('nav.signIn'),
    hasErrors: errs.length > 0,
    csrf: o.csrf,
    narrow: true,
    body: html`${errorSummary(errs, { heading: i.t('error.summary') })}<section class="card">
  <h1>${i.t('nav.signIn')}</h1>
  <form method="post" action="/accounts/login/" novalidate>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <input type="hidden" name="next" value="${o.next}">
    <label for="email">${i.t('field.email')}</label>
    ${fieldMessage(errs, 'email', i.t('error.prefix'))}
    <input type="email" id="email" name="email" value="${o.email ?? ''}" required maxlength="254" autocomplete="username" dir="ltr"${autofocus(errs)}${fieldAttrs(errs, 'email')}>
    <label for="password">${i.t('field.password')}</label>
    ${fieldMessage(errs, 'password', i.t('error.prefix'))}
    <input type="password" id="password" name="password" required maxlength="1024" autocomplete="current-password"${fieldAttrs(errs, 'password')}>
    <div class="actions"><button type="submit">${i.t('nav.signIn')}</button></div>
  </form>
</section>
<p class="foot">${i.t('signin.newHere')} <a href="/accounts/signup/${nextQuery(o.next)}">${i.t('nav.signUp')}</a></p>`,
  });
}

export function logoutPage(i: Translator, o: { csrf: string; email: string | null }): string {
  if (!o.email) {
    return renderPage({
      i,
      title: i.t('signout.doneTitle'),
      csrf: o.csrf,
      narrow: true,
      body: html`<section class="card"><h1>${i.t('signout.doneHeading')}</h1><p><a href="/accounts/login/">${i.t('signout.again')}</a></p></section>`,
    });
  }
  return renderPage({
    i,
    title: i.t('nav.signOut'),
    csrf: o.csrf,
    signedInAs: o.email,
    narrow: true,
    body: html`<section class="card">
  <h1>${i.t('nav.signOut')}</h1>
  <p>${i.h('signout.question', { email: o.email })}</p>
  <form method="post" action="/accounts/logout/">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <div class="actions"><button type="submit">${i.t('nav.signOut')}</button></div>
  </form>
</section>`,
  });
}

/** After a sign-up from the page, whether or not the address already had an account: the same words either way. */
export function checkMailPage(i: Translator, o: { csrf: string; email: string }): string {
  return renderPage({
    i,
    title: i.t('checkMail.title'),
    csrf: o.csrf,
    narrow: true,
    body: html`<section class="card">
  <h1>${i.t('checkMail.title')}</h1>
  <p role="status">${i.h('checkMail.sent', { email: o.email })}</p>
  <p class="hint">${i.t('checkMail.hint')}</p>
</section>
<p class="foot">${i.t('signup.haveAccount')} <a href="/accounts/login/">${i.t('nav.signIn')}</a></p>`,
  });
}

/** The confirmation link's page: the password chosen at sign-up, then the account exists. */
export function confirmPage(i: Translator, o: { csrf: string; email: string; path: string; error?: string }): string {
  const errs: AccountError[] = o.error ? [{ field: 'password', message: o.error }] : [];
  return renderPage({
    i,
    title: i.t('confirm.title'),
    hasErrors: errs.length > 0,
    csrf: o.csrf,
    narrow: true,
    body: html`${errorSummary(errs, { heading: i.t('error.summary') })}<section class="card">
  <h1>${i.t('confirm.title')}</h1>
  <p>${i.h('confirm.lead', { email: o.email })}</p>
  <form method="post" action="${o.path}" novalidate>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <label for="password">${i.t('field.password')}</label>
    ${fieldMessage(errs, 'password', i.t('error.prefix'))}
    <input type="password" id="password" name="password" required maxlength="1024" autocomplete="current-password"${autofocus(errs)}${fieldAttrs(errs, 'password')}>
    <div class="actions"><button type="submit">${i.t('confirm.submit')}</button></div>
  </form>
</section>`,
  });
}
