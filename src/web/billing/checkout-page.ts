import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { SESSION_COOKIE } from '../../services/sessions/session-service.js';
import { renderMessagePage, sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertFormCsrf, clearSessionCookie, CONTENT_SECURITY_POLICY, ensureCsrfToken, formField, safeNextPath } from '../web-security.js';
import { currentSession } from '../web-session.js';
import { checkoutDonePage, checkoutPage, unknownPlanPage } from './billing-views.js';

const query = (request: FastifyRequest, name: string) => {
  const v = (request.query as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : null;
};

/** The signed-in user, or a redirect to sign in that comes back to this very page. */
async function signedIn(request: FastifyRequest, reply: FastifyReply, ctx: RouteContext) {
  const session = await currentSession(request, ctx);
  if (!session) {
    if (request.cookies[SESSION_COOKIE]) clearSessionCookie(reply, ctx.config);
    await reply.redirect(`/accounts/login/?next=${encodeURIComponent(safeNextPath(request.url))}`, 302);
    return undefined;
  }
  return session.user;
}

/**
 * The web checkout, where a 402's `details.checkout_url` leads: the plan,
 * its price and features, and the way to a slot of it (Stripe Checkout when
 * configured; otherwise how the operator grants slots, and outside
 * production a test slot).
 */
export function registerCheckoutPage(web: FastifyInstance, ctx: RouteContext) {
  const billing = ctx.services.billingCheckout;

  web.get('/billing/checkout/', PAGE_ROUTE, async (request, reply) => {
    const user = await signedIn(request, reply, ctx);
    if (!user) return reply;
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const slug = query(request, 'plan');
    const view = slug ? await billing.describeCheckout(slug, user.id) : { plan: null };
    if (!view.plan) {
      const plans = await ctx.services.plans.listPlans();
      return sendHtml(reply, 404, unknownPlanPage({ csrf, email: user.email, slug, plans }));
    }
    // The form leads to Stripe's checkout page by a redirect, which form-action governs too.
    if (view.sold && billing.checkoutOrigin) {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${billing.checkoutOrigin}`));
    }
    return sendHtml(
      reply,
      200,
      checkoutPage({
        csrf,
        email: user.email,
        plan: view.plan,
        sold: view.sold,
        available: view.available,
        testSlotOffered: billing.testSlotsOffered,
        granted: query(request, 'granted') === 'test',
      }),
    );
  });

  web.post('/billing/checkout/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    const user = await signedIn(request, reply, ctx);
    if (!user) return reply;
    const url = await billing.startCheckout(user, formField(request, 'plan') ?? '');
    return reply.redirect(url, 303);
  });

  web.post('/billing/checkout/test-slot/', PAGE_ROUTE, async (request, reply) => {
    assertFormCsrf(request, ctx.config);
    const user = await signedIn(request, reply, ctx);
    if (!user) return reply;
    const slot = await billing.grantTestSlot(user.id, formField(request, 'plan') ?? '', String(request.id));
    return reply.redirect(`/billing/checkout/?plan=${encodeURIComponent(slot.plan)}&granted=test`, 303);
  });

  // Stripe sends the buyer here after paying; the slot is added now unless its event came first.
  web.get('/billing/checkout/success/', PAGE_ROUTE, async (request, reply) => {
    const user = await signedIn(request, reply, ctx);
    if (!user) return reply;
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const done = await billing.confirmCheckout(user.id, query(request, 'session_id') ?? '', String(request.id));
    return sendHtml(reply, 200, checkoutDonePage({ csrf, email: user.email, ...done }));
  });

  // Stripe's customer portal, where owners change their card or cancel.
  web.get('/billing/portal/', PAGE_ROUTE, async (request, reply) => {
    const user = await signedIn(request, reply, ctx);
    if (!user) return reply;
    const url = await billing.portalUrl(user.id);
    if (url) return reply.redirect(url, 303);
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const message = billing.stripeEnabled
      ? 'You have not bought anything through the checkout yet, so there is no billing to manage. Slots the operator granted are managed by the operator.'
      : 'Billing on this service is handled by its operator, who grants book slots; write to them to change or end a plan.';
    return sendHtml(reply, 200, renderMessagePage({ title: 'Billing', message, csrf, signedInAs: user.email, link: { href: '/settings/tokens/', text: 'Back to your API tokens' } }));
  });
}
