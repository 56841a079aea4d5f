/**
 * Reading the parts of Stripe's objects that billing uses. Stripe has moved
 * some of them between API versions (an invoice's subscription now sits under
 * `parent.subscription_details`), so each reader accepts both places.
 */

type Obj = Record<string, any>;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const idOf = (v: unknown): string | null => str(v) ?? (v && typeof v === 'object' ? str((v as Obj).id) : null);
const seconds = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null);

export const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/** The buyer and plan memorybook put in the checkout's metadata (and the subscription's). */
export function buyerOf(metadata: unknown): { userId: string | null; planSlug: string | null } {
  const m = metadata && typeof metadata === 'object' ? (metadata as Obj) : {};
  return { userId: str(m.user_id), planSlug: str(m.plan) };
}

export function invoiceSubscription(invoice: Obj): { id: string | null; metadata: unknown } {
  const details = invoice.parent?.subscription_details ?? invoice.subscription_details ?? null;
  const fromLines = (invoice.lines?.data ?? []).map((l: Obj) => idOf(l.parent?.subscription_item_details?.subscription ?? l.subscription)).find(Boolean) ?? null;
  return { id: idOf(details?.subscription) ?? idOf(invoice.subscription) ?? fromLines, metadata: details?.metadata ?? null };
}

/**
 * The service period an invoice bills: the latest of its lines' periods (a
 * subscription invoice's own period_start/period_end describe the items
 * gathered before it, not the period it pays for).
 */
export function invoicePeriod(invoice: Obj): { start: number; end: number } | null {
  let best: { start: number; end: number } | null = null;
  for (const line of invoice.lines?.data ?? []) {
    const start = seconds(line?.period?.start);
    const end = seconds(line?.period?.end);
    if (start !== null && end !== null && end >= start && (!best || end > best.end)) best = { start, end };
  }
  if (best) return best;
  const start = seconds(invoice.period_start);
  const end = seconds(invoice.period_end);
  return start !== null && end !== null && end >= start ? { start, end } : null;
}

/** A subscription's current period end, wherever this API version keeps it. */
export function subscriptionPeriodEnd(subscription: Obj): number | null {
  const fromItems = (subscription.items?.data ?? []).map((i: Obj) => seconds(i.current_period_end)).filter((v: number | null): v is number => v !== null);
  return fromItems.length ? Math.max(...fromItems) : seconds(subscription.current_period_end);
}

export function customerOf(o: Obj): string | null {
  return idOf(o.customer);
}

export { idOf, seconds };
