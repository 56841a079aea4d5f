import { html, type SafeHtml } from '../html.js';
import { renderPage } from '../layout.js';
import { CSRF_FIELD } from '../web-security.js';

interface PlanView {
  slug: string;
  name: string;
  is_default: boolean;
  price: { amount_cents: number; currency: string; interval: string } | null;
  features: Record<string, boolean>;
  max_members_per_book: number;
  storage_bytes_per_book: number;
  max_approved_submissions_per_book: number | null;
  channels: string[];
}

const FEATURE_NAMES: Record<string, string> = {
  api_access: 'Memories from your own app or website',
  pdf_export: 'PDF export',
  json_export: 'JSON export',
  zip_export: 'ZIP export (every file)',
  feature_ai_enhancer: 'AI enhancer',
  feature_audio: 'Audio memories',
  feature_video: 'Video memories',
  feature_live_photo: 'Live photos',
  feature_transcription: 'Voice notes transcribed',
};

export function priceText(price: PlanView['price']): string {
  if (!price) return 'Free';
  const amount = new Intl.NumberFormat('en', { style: 'currency', currency: price.currency.toUpperCase() }).format(price.amount_cents / 100);
  const per: Record<string, string> = { month: ' a month', year: ' a year', one_time: ' per book' };
  return amount + (per[price.interval] ?? ` (${price.interval})`);
}

const gib = (bytes: number) => `${Math.round((bytes / 1024 ** 3) * 10) / 10} GB`;

function planDetails(plan: PlanView): SafeHtml {
  const included = Object.entries(plan.features).filter(([, on]) => on).map(([f]) => FEATURE_NAMES[f] ?? f);
  return html`<p class="price" id="plan-price">${priceText(plan.price)}</p>
  <ul class="features" id="plan-features">
    ${included.map((f) => html`<li>${f}</li>`)}
    <li>Up to ${plan.max_members_per_book} members per book</li>
    <li>${gib(plan.storage_bytes_per_book)} of storage per book</li>
    <li>${plan.max_approved_submissions_per_book === null ? 'No cap on memories' : `Up to ${plan.max_approved_submissions_per_book} memories`}</li>
    <li>Channels: ${plan.channels.join(', ')}</li>
  </ul>`;
}

/** The page a 402's checkout_url leads to. */
export function checkoutPage(o: {
  csrf: string;
  email: string | null;
  plan: PlanView;
  sold: boolean;
  available: number | null;
  testSlotOffered: boolean;
  granted: boolean;
}): string {
  const { plan } = o;
  const held =
    o.available !== null && o.available > 0
      ? html`<div class="alert success" role="status" id="slots-held">
          ${o.granted ? html`<p>A test slot was added.</p>` : ''}
          <p>You hold ${o.available} unused ${plan.name} book slot${o.available === 1 ? '' : 's'}: create the book again on the ${plan.name} plan and it will use one.</p>
        </div>`
      : '';
  const buy = plan.is_default
    ? html`<p>The ${plan.name} plan is the default: books on it need no slot.</p>`
    : o.sold
      ? html`<form method="post" action="/billing/checkout/" id="checkout-form">
          <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
          <input type="hidden" name="plan" value="${plan.slug}">
          <p>One ${plan.name} book slot is one subscription, paid through Stripe. After paying you come back here and the slot is yours.</p>
          <div class="actions"><button type="submit">Continue to payment</button></div>
        </form>`
      : html`<div id="operator-grants">
          <p>${plan.name} book slots are not sold online here: the people who run this service add them by hand.
          To ask for one, write to them with the email address of your account (<strong><bdi>${o.email ?? ''}</bdi></strong>) and the plan you want (${plan.name}).</p>
        </div>`;
  const testSlot =
    o.testSlotOffered && !plan.is_default
      ? html`<form method="post" action="/billing/checkout/test-slot/" id="test-slot-form" class="test-slot">
          <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
          <input type="hidden" name="plan" value="${plan.slug}">
          <p class="hint">This service does not run in production mode, so you can try the plan without paying.</p>
          <div class="actions"><button type="submit" class="secondary">Grant me a test slot</button></div>
        </form>`
      : '';
  return renderPage({
    title: `${plan.name} plan`,
    csrf: o.csrf,
    signedInAs: o.email,
    body: html`<section class="card">
  <h1>The ${plan.name} plan</h1>
  ${planDetails(plan)}
  ${held}
  ${buy}
  ${testSlot}
</section>`,
  });
}

/** A plan slug the catalog does not have: the plans it has, each with its own link. */
export function unknownPlanPage(o: { csrf: string; email: string | null; slug: string | null; plans: PlanView[] }): string {
  return renderPage({
    title: 'No such plan',
    csrf: o.csrf,
    signedInAs: o.email,
    body: html`<section class="card">
  <h1>No such plan</h1>
  <p>${o.slug ? html`There is no plan called <code>${o.slug}</code>.` : 'No plan was named.'} The plans on offer:</p>
  <ul id="plans">
    ${o.plans.map((p) => html`<li><a href="/billing/checkout/?plan=${encodeURIComponent(p.slug)}">${p.name}</a> · ${priceText(p.price)}</li>`)}
  </ul>
</section>`,
  });
}

export function checkoutDonePage(o: { csrf: string; email: string | null; state: 'paid' | 'processing' | 'open'; plan: PlanView | null; available: number }): string {
  const name = o.plan?.name ?? 'book';
  const TITLES = { paid: 'Payment received', processing: 'Payment processing', open: 'Payment pending' } as const;
  return renderPage({
    title: TITLES[o.state],
    csrf: o.csrf,
    signedInAs: o.email,
    narrow: true,
    body:
      o.state === 'paid'
        ? html`<section class="card" id="checkout-done">
  <h1>Your ${name} slot is ready</h1>
  <p>Thank you. You hold ${o.available} unused ${name} book slot${o.available === 1 ? '' : 's'}.
  Create the book again${o.plan ? ` on the ${o.plan.name} plan` : ''} and it will use one.</p>
  <p><a href="/billing/portal/">Manage billing</a></p>
</section>`
        : o.state === 'processing'
          ? html`<section class="card" id="checkout-processing">
  <h1>Your payment is on its way</h1>
  <p>Thank you. Your bank has not cleared the payment yet: this can take a few days with a bank debit.
  We will add your ${name} slot when the payment clears; nothing is needed from you meanwhile. Until then you hold ${o.available} unused ${name} book slot${o.available === 1 ? '' : 's'}.</p>
  <p><a href="/billing/portal/">Manage billing</a></p>
</section>`
          : html`<section class="card" id="checkout-pending">
  <h1>Payment not finished</h1>
  <p>Stripe has not confirmed this payment yet. Reload this page in a moment${o.plan ? html`, or <a href="/billing/checkout/?plan=${encodeURIComponent(o.plan.slug)}">start again</a>` : ''}.</p>
</section>`,
  });
}
