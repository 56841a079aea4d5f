import { eventTraceContext, inSpan, markSpanError, safeUrl, SpanKind } from '../../lib/tracing.js';

/** What a delivery attempt's span needs to know of it, and what it learns of the answer. */
export interface DeliveryAttempt {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  url: string;
  attempts: number;
}

/**
 * One delivery attempt's HTTP request in a client span (tracing on; with it off, send runs as it is). The span is
 * a child of the request's or job's span that recorded the event, when this process recorded it lately (see
 * rememberEventTrace in lib/tracing.ts), so an operator follows a change through to the receiver.
 */
export function tracedDelivery<O extends { statusCode: number | null; error: string | null }>(c: DeliveryAttempt, send: () => Promise<O>): Promise<O> {
  let target: ReturnType<typeof safeUrl> | Record<string, never> = {};
  try {
    target = safeUrl(c.url);
  } catch {
    // A URL the guard refuses is reported by send itself.
  }
  return inSpan(
    'POST',
    {
      kind: SpanKind.CLIENT,
      parent: eventTraceContext(c.event_id),
      attributes: {
        'http.request.method': 'POST',
        ...target,
        'memorybook.webhook.delivery_id': c.id,
        'memorybook.webhook.event_id': c.event_id,
        'memorybook.webhook.event_type': c.event_type,
        'memorybook.webhook.endpoint_id': c.endpoint_id,
        'http.request.resend_count': Math.max(0, c.attempts - 1),
      },
    },
    async (span) => {
      const outcome = await send();
      if (span) {
        if (outcome.statusCode !== null) span.setAttribute('http.response.status_code', outcome.statusCode);
        const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
        if (!ok) markSpanError(span, outcome.statusCode !== null ? String(outcome.statusCode) : 'no_answer');
      }
      return outcome;
    },
  );
}
