/**
 * Reading the parts of Stripe's objects that billing uses. Stripe has moved
 * some of them between API versions (an invoice's subscription now sits under
 * `parent.subscription_details`), so each reader accepts both places. Nothing
 * here trusts a shape: a missing or odd field reads as null.
 */

/** The value at a path of nested objects, or undefined. */
export function at(o: unknown, ...keys: string[]): unknown {
  let v = o;
  for (const k of keys) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
/** An id given as itself or as the expanded object. */
export const idOf = (v: unknown): string | null => str(v) ?? str(at(v, 'id'));
const seconds = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null);

export const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/** The buyer and plan memorybook put in the checkout's metadata (and the subscription's). */
export function buyerOf(metadata: unknown): { userId: string | null; planSlug: string | null } {
  return { userId: str(at(metadata, 'user_id')), planSlug: str(at(metadata, 'plan')) };
}

export function invoiceSubscription(invoice: unknown): { id: string | null; metadata: unknown } {
  const details = at(invoice, 'parent', 'subscription_details') ?? at(invoice, 'subscription_details');
  const fromLines =
    list(at(invoice, 'lines', 'data'))
      .map((l) => idOf(at(l, 'parent', 'subscription_item_details', 'subscription') ?? at(l, 'subscription')))
      .find(Boolean) ?? null;
  return { id: idOf(at(details, 'subscription')) ?? idOf(at(invoice, 'subscription')) ?? fromLines, metadata: at(details, 'metadata') ?? null };
}

/**
 * The service period an invoice bills: the latest of its lines' periods (a
 * subscription invoice's own period_start/period_end describe the items
 * gathered before it, not the period it pays for).
 */
export function invoicePeriod(invoice: unknown): { start: number; end: number } | null {
  let best: { start: number; end: number } | null = null;
  for (const line of list(at(invoice, 'lines', 'data'))) {
    const start = seconds(at(line, 'period', 'start'));
    const end = seconds(at(line, 'period', 'end'));
    if (start !== null && end !== null && end >= start && (!best || end > best.end)) best = { start, end };
  }
  if (best) return best;
  const start = seconds(at(invoice, 'period_start'));
  const end = seconds(at(invoice, 'period_end'));
  return start !== null && end !== null && end >= start ? { start, end } : null;
}

/** A subscription's current period end, wherever this API version keeps it. */
export function subscriptionPeriodEnd(subscription: unknown): number | null {
  const fromItems = list(at(subscription, 'items', 'data'))
    .map((i) => seconds(at(i, 'current_period_end')))
    .filter((v): v is number => v !== null);
  return fromItems.length ? Math.max(...fromItems) : seconds(at(subscription, 'current_period_end'));
}

export function endedAt(subscription: unknown): number | null {
  return seconds(at(subscription, 'ended_at'));
}

export function customerOf(o: unknown): string | null {
  return idOf(at(o, 'customer'));
}

/** The price a subscription bills (its first item's), or null. */
export function subscriptionPrice(subscription: unknown): string | null {
  return list(at(subscription, 'items', 'data')).map((i) => idOf(at(i, 'price'))).find(Boolean) ?? null;
}

/** Whether the subscription is set to end (at its period's end, or at a date the owner chose in the portal). */
export function endsLater(subscription: unknown): boolean {
  return at(subscription, 'cancel_at_period_end') === true || seconds(at(subscription, 'cancel_at')) !== null;
}

/** Stripe's subscription status as a billing status; null for those that change nothing here (incomplete, paused, canceled: its deletion event ends it). */
export function billingStatusOf(subscription: unknown): 'active' | 'grace_period' | null {
  const status = str(at(subscription, 'status'));
  if (status === 'active' || status === 'trialing') return 'active';
  if (status === 'past_due' || status === 'unpaid') return 'grace_period';
  return null;
}
