import type { TokenRow } from '../../services/tokens/token-service.js';
import { html } from '../html.js';
import { renderPage } from '../layout.js';
import { ASSETS } from '../static/static-routes.js';

function when(ts: string | null): string {
  return ts ? `${ts.slice(0, 16).replace('T', ' ')} UTC` : 'never';
}

export function tokensPage(o: { csrf: string; email: string; tokens: TokenRow[] }): string {
  const rows = o.tokens.map(
    (t) => html`<tr><td class="name">${t.name}</td><td>${when(t.created_at)}</td><td>${when(t.last_used_at)}</td></tr>`,
  );
  return renderPage({
    title: 'API tokens',
    csrf: o.csrf,
    signedInAs: o.email,
    scripts: [ASSETS.tokensJs.href],
    body: html`<section class="card">
  <h1>API tokens</h1>
  <p class="lead">A token lets a script or integration call the Memory Book API as you
  (<code>Authorization: Bearer svc_live_…</code>). Give each one its own name, so you know which is which.</p>
  <form id="create-token" class="inline" novalidate>
    <div>
      <label for="token-name">Token name</label>
      <input type="text" id="token-name" name="name" required maxlength="100" autocomplete="off" placeholder="e.g. photo-sync">
    </div>
    <button type="submit">Create token</button>
  </form>
  <noscript><div class="alert error"><p>Creating a token needs JavaScript in this browser.</p></div></noscript>
  <div id="token-error" class="alert error" role="alert" hidden></div>
  <div id="token-created" class="alert success" role="status" hidden>
    <p><strong>Token “<span id="created-name"></span>” created.</strong></p>
    <div class="secret"><code id="token-plaintext"></code><button type="button" id="copy-token" class="secondary">Copy</button></div>
    <p class="hint" id="copy-status"></p>
  </div>
</section>
<section class="card">
  <h2>Your tokens</h2>
  <p id="no-tokens" class="empty"${o.tokens.length ? html` hidden` : ''}>You have no API tokens yet.</p>
  <table id="token-table"${o.tokens.length ? '' : html` hidden`}>
    <thead><tr><th>Name</th><th>Created</th><th>Last used</th></tr></thead>
    <tbody id="token-rows">${rows}</tbody>
  </table>
</section>
<section class="card">
  <h2>Billing</h2>
  <p>Change your card or end a paid plan in the <a href="/billing/portal/" id="billing-portal">billing portal</a>.</p>
</section>`,
  });
}
