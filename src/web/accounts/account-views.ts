import { errorSummary, fieldAttrs, fieldMessage, type FieldError } from '../form-errors.js';
import { html } from '../html.js';
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
const DEFAULT_NEXT = '/settings/tokens/';

export function signupPage(o: {
  csrf: string;
  next?: string;
  error?: AccountError;
  email?: string;
  firstName?: string;
  lastName?: string;
  /** The address of the email invitation this sign-up came from: with it, no confirmation mail is needed. */
  invitedEmail?: string | null;
}): string {
  const errs = list(o.error);
  return renderPage({
    title: 'Create an account',
    hasErrors: errs.length > 0,
    csrf: o.csrf,
    narrow: true,
    body: html`${errorSummary(errs)}<section class="card">
  <h1>Create an account</h1>
  ${o.invitedEmail
    ? html`<p class="lead">An account lets you accept your invitation, share memories and see the books you belong to.</p>
  <p class="hint">Your invitation is for <strong><bdi>${o.invitedEmail}</bdi></strong>: sign up with that address and you can accept it straight away.</p>`
    : html`<p class="lead">Collect memories from family and friends into books you can print and keep.</p>
  <p class="hint">We will mail you a link to confirm your address before you can sign in.</p>`}
  <form method="post" action="/accounts/signup/" novalidate>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    ${o.next && o.next !== DEFAULT_NEXT ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
    <label for="email">Email</label>
    ${fieldMessage(errs, 'email')}
    <input type="email" id="email" name="email" value="${o.email ?? o.invitedEmail ?? ''}" required maxlength="254" autocomplete="email"${autofocus(errs)}${fieldAttrs(errs, 'email')}>
    <label for="password">Password</label>
    <p class="hint" id="password-hint">At least 8 characters.</p>
    ${fieldMessage(errs, 'password')}
    <input type="password" id="password" name="password" required minlength="8" maxlength="1024" autocomplete="new-password"${fieldAttrs(errs, 'password', 'password-hint')}>
    <div class="row">
      <div>
        <label for="first_name">First name <span class="optional">(optional)</span></label>
        ${fieldMessage(errs, 'first_name')}
        <input type="text" id="first_name" name="first_name" value="${o.firstName ?? ''}" maxlength="150" autocomplete="given-name" dir="auto"${fieldAttrs(errs, 'first_name')}>
      </div>
      <div>
        <label for="last_name">Last name <span class="optional">(optional)</span></label>
        ${fieldMessage(errs, 'last_name')}
        <input type="text" id="last_name" name="last_name" value="${o.lastName ?? ''}" maxlength="150" autocomplete="family-name" dir="auto"${fieldAttrs(errs, 'last_name')}>
      </div>
    </div>
    <div class="actions"><button type="submit">Create account</button></div>
  </form>
</section>
<p class="foot">Already have an account? <a href="/accounts/login/${nextQuery(o.next)}">Sign in</a></p>`,
  });
}

export function loginPage(o: { csrf: string; next: string; error?: AccountError; email?: string }): string {
  const errs = list(o.error);
  return renderPage({
    title: 'Sign in',
    hasErrors: errs.length > 0,
    csrf: o.csrf,
    narrow: true,
    body: html`${errorSummary(errs)}<section class="card">
  <h1>Sign in</h1>
  <form method="post" action="/accounts/login/" novalidate>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <input type="hidden" name="next" value="${o.next}">
    <label for="email">Email</label>
    ${fieldMessage(errs, 'email')}
    <input type="email" id="email" name="email" value="${o.email ?? ''}" required maxlength="254" autocomplete="username"${autofocus(errs)}${fieldAttrs(errs, 'email')}>
    <label for="password">Password</label>
    ${fieldMessage(errs, 'password')}
    <input type="password" id="password" name="password" required maxlength="1024" autocomplete="current-password"${fieldAttrs(errs, 'password')}>
    <div class="actions"><button type="submit">Sign in</button></div>
  </form>
</section>
<p class="foot">New here? <a href="/accounts/signup/${nextQuery(o.next)}">Create an account</a></p>`,
  });
}

export function logoutPage(o: { csrf: string; email: string | null }): string {
  if (!o.email) {
    return renderPage({
      title: 'Signed out',
      csrf: o.csrf,
      narrow: true,
      body: html`<section class="card"><h1>You are signed out</h1><p><a href="/accounts/login/">Sign in again</a></p></section>`,
    });
  }
  return renderPage({
    title: 'Sign out',
    csrf: o.csrf,
    signedInAs: o.email,
    narrow: true,
    body: html`<section class="card">
  <h1>Sign out</h1>
  <p>Sign out of <bdi>${o.email}</bdi> in this browser?</p>
  <form method="post" action="/accounts/logout/">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <div class="actions"><button type="submit">Sign out</button></div>
  </form>
</section>`,
  });
}

/** After a sign-up from the page, whether or not the address already had an account: the same words either way. */
export function checkMailPage(o: { csrf: string; email: string }): string {
  return renderPage({
    title: 'Check your mail',
    csrf: o.csrf,
    narrow: true,
    body: html`<section class="card">
  <h1>Check your mail</h1>
  <p role="status">We sent a message to <strong><bdi>${o.email}</bdi></strong>. Open the link in it to finish: your account is ready once the address is confirmed.</p>
  <p class="hint">Nothing there after a few minutes? Look in the spam folder, or sign up again.</p>
</section>
<p class="foot">Already have an account? <a href="/accounts/login/">Sign in</a></p>`,
  });
}

/** The confirmation link's page: the password chosen at sign-up, then the account exists. */
export function confirmPage(o: { csrf: string; email: string; path: string; error?: string }): string {
  const errs: AccountError[] = o.error ? [{ field: 'password', message: o.error }] : [];
  return renderPage({
    title: 'Confirm your address',
    hasErrors: errs.length > 0,
    csrf: o.csrf,
    narrow: true,
    body: html`${errorSummary(errs)}<section class="card">
  <h1>Confirm your address</h1>
  <p>Finish creating the account for <strong><bdi>${o.email}</bdi></strong>: enter the password you chose when you signed up.</p>
  <form method="post" action="${o.path}" novalidate>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <label for="password">Password</label>
    ${fieldMessage(errs, 'password')}
    <input type="password" id="password" name="password" required maxlength="1024" autocomplete="current-password"${autofocus(errs)}${fieldAttrs(errs, 'password')}>
    <div class="actions"><button type="submit">Confirm and sign in</button></div>
  </form>
</section>`,
  });
}
