import { html } from '../html.js';
import { renderPage } from '../layout.js';
import { CSRF_FIELD } from '../web-security.js';

function errorBox(message: string | undefined) {
  return message ? html`<div class="alert error" role="alert"><p>${message}</p></div>` : '';
}

/** `?next=` for a link between the two forms, kept only when it leads somewhere other than the default. */
function nextQuery(next: string | undefined): string {
  return next && next !== DEFAULT_NEXT ? `?next=${encodeURIComponent(next)}` : '';
}
const DEFAULT_NEXT = '/';

export function signupPage(o: {
  csrf: string;
  next?: string;
  error?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  /** The address of the email invitation this sign-up came from: with it, no confirmation mail is needed. */
  invitedEmail?: string | null;
}): string {
  return renderPage({
    title: 'Create an account',
    csrf: o.csrf,
    narrow: true,
    body: html`<section class="card">
  <h1>Create an account</h1>
  <p class="lead">Collect memories into books, and call the Memory Book API from your own tools.</p>
  ${errorBox(o.error)}
  ${o.invitedEmail ? html`<p class="hint">Your invitation is for <strong>${o.invitedEmail}</strong>: sign up with that address and you can accept it straight away.</p>` : html`<p class="hint">We will mail you a link to confirm your address before you can sign in.</p>`}
  <form method="post" action="/accounts/signup/">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    ${o.next && o.next !== DEFAULT_NEXT ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
    <label for="email">Email</label>
    <input type="email" id="email" name="email" value="${o.email ?? o.invitedEmail ?? ''}" required maxlength="254" autocomplete="email" autofocus>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" required minlength="8" maxlength="1024" autocomplete="new-password">
    <p class="hint">At least 8 characters.</p>
    <div class="row">
      <div>
        <label for="first_name">First name <span class="optional">(optional)</span></label>
        <input type="text" id="first_name" name="first_name" value="${o.firstName ?? ''}" maxlength="150" autocomplete="given-name">
      </div>
      <div>
        <label for="last_name">Last name <span class="optional">(optional)</span></label>
        <input type="text" id="last_name" name="last_name" value="${o.lastName ?? ''}" maxlength="150" autocomplete="family-name">
      </div>
    </div>
    <div class="actions"><button type="submit">Create account</button></div>
  </form>
</section>
<p class="foot">Already have an account? <a href="/accounts/login/${nextQuery(o.next)}">Sign in</a></p>`,
  });
}

export function loginPage(o: { csrf: string; next: string; error?: string; email?: string }): string {
  return renderPage({
    title: 'Sign in',
    csrf: o.csrf,
    narrow: true,
    body: html`<section class="card">
  <h1>Sign in</h1>
  ${errorBox(o.error)}
  <form method="post" action="/accounts/login/">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <input type="hidden" name="next" value="${o.next}">
    <label for="email">Email</label>
    <input type="email" id="email" name="email" value="${o.email ?? ''}" required maxlength="254" autocomplete="username" autofocus>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" required maxlength="1024" autocomplete="current-password">
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
  <p>Sign out of ${o.email} in this browser? Your API tokens keep working.</p>
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
  <p role="status">We sent a message to <strong>${o.email}</strong>. Open the link in it to finish: your account is ready once the address is confirmed.</p>
  <p class="hint">Nothing there after a few minutes? Look in the spam folder, or sign up again.</p>
</section>
<p class="foot">Already have an account? <a href="/accounts/login/">Sign in</a></p>`,
  });
}

/** The confirmation link's page: the password chosen at sign-up, then the account exists. */
export function confirmPage(o: { csrf: string; email: string; path: string; error?: string }): string {
  return renderPage({
    title: 'Confirm your address',
    csrf: o.csrf,
    narrow: true,
    body: html`<section class="card">
  <h1>Confirm your address</h1>
  <p>Finish creating the account for <strong>${o.email}</strong>: enter the password you chose when you signed up.</p>
  ${errorBox(o.error)}
  <form method="post" action="${o.path}">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <label for="password">Password</label>
    <input type="password" id="password" name="password" required maxlength="1024" autocomplete="current-password" autofocus>
    <div class="actions"><button type="submit">Confirm and sign in</button></div>
  </form>
</section>`,
  });
}
