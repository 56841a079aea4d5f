/**
 * Traces (OpenTelemetry), off unless the operator configures them through the standard OTEL_* variables.
 *
 * Everything here speaks only `@opentelemetry/api`, whose tracer is a no-op until an SDK registers: with
 * tracing off each helper below is one boolean test and a direct call, and the SDK (tracing-sdk.ts) is
 * never loaded. `startTracing` (the process entry's) decides from the environment and loads it lazily.
 *
 * Spans made here: one per HTTP request (app.ts), per job sent and per job run (jobs/queue.ts, the run a
 * child of the request that queued it through a W3C traceparent carried in the job's stored payload), per
 * database statement or transaction (db/client.ts), and per outbound call: webhook deliveries, SMS /
 * Telegram / WhatsApp / Stripe, S3, SMTP.
 */
import type { Attributes, Context, Link, Span, SpanKind as ApiSpanKind } from '@opentelemetry/api';

export type { Attributes, Span };

/** The span kinds of `@opentelemetry/api` (its values), here so that naming one does not load the API. */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];
/** SpanStatusCode.ERROR of `@opentelemetry/api`. */
const STATUS_ERROR = 2;

// `@opentelemetry/api` is read by startTracing, with the SDK: with tracing off no helper below touches it.
type Api = typeof import('@opentelemetry/api');
let api: Api | undefined;

/** Set once the SDK is registered (and `api` read): every helper checks it first. */
let on = false;

/** Whether spans are being recorded in this process. */
export function tracingOn(): boolean {
  return on;
}

/**
 * Whether a span is active here (tracing on): database statements are spans only inside a request's, a job's
 * or another span, not the job queue's and dispatcher's idle polling (a trace every few seconds of nothing).
 */
export function tracingInSpan(): boolean {
  return on && api!.trace.getSpan(api!.context.active()) !== undefined;
}

const tracer = () => api!.trace.getTracer('memorybook');

type Env = Record<string, string | undefined>;

export interface TracingSettings {
  exporter: 'otlp' | 'console';
  /** Problems worth a warning (an unsupported exporter or protocol): tracing still runs as described. */
  warnings: string[];
}

const truthy = (v: string | undefined) => v?.trim().toLowerCase() === 'true';

/**
 * Whether (and how) the environment asks for traces, by the OpenTelemetry spec's meanings: OTEL_SDK_DISABLED=true
 * turns everything off; OTEL_TRACES_EXPORTER names the exporters (`otlp`, `console`; `none` is off). Unlike the
 * spec's default of `otlp`, an unset OTEL_TRACES_EXPORTER means tracing only when an OTLP endpoint is given
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): a plain start never sends anything anywhere.
 */
export function tracingSettings(env: Env): TracingSettings | null {
  if (truthy(env.OTEL_SDK_DISABLED)) return null;
  const warnings: string[] = [];
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
  if (names.includes('none')) return null;
  let exporter: TracingSettings['exporter'] | null = null;
  if (names.length === 0) exporter = endpoint ? 'otlp' : null;
  else if (names.includes('otlp')) exporter = 'otlp';
  else if (names.includes('console')) exporter = 'console';
  const unknown = names.filter((n) => n !== 'otlp' && n !== 'console');
  if (unknown.length) warnings.push(`OTEL_TRACES_EXPORTER: ${unknown.join(', ')} not supported (otlp, console, none are); ignored`);
  if (!exporter) return null;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (exporter === 'otlp' && protocol && protocol !== 'http/json') {
    warnings.push(`OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} not supported; traces are sent as OTLP http/json (a collector's OTLP/HTTP port, 4318, takes both)`);
  }
  return { exporter, warnings };
}

export interface Tracing {
  /** Sends the spans still buffered and stops (the process is ending). */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing when the environment asks for it (see tracingSettings); otherwise answers null having loaded
 * nothing. `env` may hold variables from a .env file: the OTEL_* ones are copied to process.env (where the SDK
 * reads them) unless set there already.
 */
export async function startTracing(
  env: Env,
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void },
  defaults: { serviceName: string; serviceVersion?: string } = { serviceName: 'memorybook' },
): Promise<Tracing | null> {
  const settings = tracingSettings(env);
  if (!settings) return null;
  for (const [k, v] of Object.entries(env)) if (k.startsWith('OTEL_') && v !== undefined && process.env[k] === undefined) process.env[k] = v;
  for (const w of settings.warnings) log.warn({ tracing: true }, w);
  api = await import('@opentelemetry/api');
  const { registerTracing } = await import('./tracing-sdk.js');
  const shutdown = registerTracing(settings, defaults);
  on = true;
  log.info({ exporter: settings.exporter, endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null }, 'tracing on');
  return {
    async shutdown() {
      on = false;
      await shutdown();
    },
  };
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** The parent; default the active context. */
  parent?: Context;
}

/**
 * Runs fn in a span of its own (the active one while fn runs): ended when fn settles, an error recorded with
 * status ERROR. With tracing off, fn runs as it is (its span argument undefined).
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!on) return fn(undefined);
  const { context, trace } = api!;
  const span = tracer().startSpan(name, { kind: options.kind as ApiSpanKind | undefined, attributes: options.attributes, links: options.links }, options.parent ?? context.active());
  return context.with(trace.setSpan(options.parent ?? context.active(), span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends (a request's, which ends in another hook). Undefined with tracing off. */
export function startSpan(name: string, options: SpanOptions = {}): Span | undefined {
  if (!on) return undefined;
  return tracer().startSpan(name, { kind: options.kind as ApiSpanKind | undefined, attributes: options.attributes, links: options.links }, options.parent ?? api!.context.active());
}

/** Runs fn with span as the active one (a span exists only with tracing on). */
export function withActiveSpan<T>(span: Span, fn: () => T, parent?: Context): T {
  const { context, trace } = api!;
  return context.with(trace.setSpan(parent ?? context.active(), span), fn);
}

/** Records an error on a span: status ERROR, the exception event, error.type. */
export function failSpan(span: Span, err: unknown): void {
  const e = err as { name?: string; code?: unknown; message?: string };
  span.recordException(err instanceof Error ? err : String(err));
  span.setAttribute('error.type', typeof e?.code === 'string' ? e.code : (e?.name ?? 'Error'));
  span.setStatus({ code: STATUS_ERROR, message: e?.message?.slice(0, 300) });
}

/** Status ERROR without an exception (an HTTP answer of 5xx, a failed delivery). */
export function markSpanError(span: Span, errorType: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: STATUS_ERROR });
}

/** The parent an incoming request names in its traceparent/tracestate headers (W3C Trace Context), or the root; undefined with tracing off. */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): Context | undefined {
  if (!on) return undefined;
  if (!headers.traceparent) return api!.ROOT_CONTEXT;
  return api!.propagation.extract(api!.ROOT_CONTEXT, headers);
}

/** The active span as a W3C traceparent (and tracestate), for a job's payload; undefined with tracing off or no span. */
export function activeTraceparent(): JobTrace | undefined {
  if (!on) return undefined;
  const carrier: Record<string, string> = {};
  api!.propagation.inject(api!.context.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) } : undefined;
}

/** The trace context a job carries in its stored payload, under TRACE_KEY. */
export interface JobTrace {
  traceparent: string;
  tracestate?: string;
}

/** The payload key the trace context travels under; removed before the payload is checked against its schema. */
export const TRACE_KEY = '_trace';

/** A stored job payload split into the payload its handler sees and the trace context it carried (if any). */
export function splitJobTrace(data: unknown): { payload: unknown; trace: JobTrace | undefined } {
  if (!data || typeof data !== 'object' || Array.isArray(data) || !(TRACE_KEY in data)) return { payload: data, trace: undefined };
  const { [TRACE_KEY]: carried, ...payload } = data as Record<string, unknown>;
  const t = carried as Partial<JobTrace> | null;
  const valid = t && typeof t.traceparent === 'string' && t.traceparent.length <= 128;
  return { payload, trace: valid ? { traceparent: t.traceparent!, ...(typeof t.tracestate === 'string' ? { tracestate: t.tracestate.slice(0, 512) } : {}) } : undefined };
}

/** The context a carried trace names, or the root; undefined with tracing off. */
export function contextFromJobTrace(t: JobTrace | undefined): Context | undefined {
  if (!on) return undefined;
  if (!t) return api!.ROOT_CONTEXT;
  return api!.propagation.extract(api!.ROOT_CONTEXT, t);
}

/**
 * Which span recorded each recent event, so the webhook deliveries it causes
 * (sent later by the dispatcher, from rows that carry no trace) join the
 * trace of the request or job that made the change. Kept in this process
 * only, for EVENT_TRACE_TTL_MS and at most EVENT_TRACE_MAX events: a delivery
 * sent by another process, or after a restart, starts a trace of its own.
 */
const EVENT_TRACE_MAX = 10_000;
const EVENT_TRACE_TTL_MS = 15 * 60_000;
const eventTraces = new Map<string, { ctx: Context; at: number }>();

/** Notes the active span as the one that recorded this event (tracing on only). */
export function rememberEventTrace(eventId: string): void {
  if (!on) return;
  const span = api!.trace.getSpan(api!.context.active());
  if (!span || !span.spanContext().traceId) return;
  if (eventTraces.size >= EVENT_TRACE_MAX) eventTraces.delete(eventTraces.keys().next().value!);
  eventTraces.set(eventId, { ctx: api!.trace.setSpan(api!.ROOT_CONTEXT, span), at: Date.now() });
}

/** The context of the span that recorded this event, when this process recorded it lately. */
export function eventTraceContext(eventId: string): Context | undefined {
  if (!on) return undefined;
  const hit = eventTraces.get(eventId);
  if (!hit) return undefined;
  if (Date.now() - hit.at > EVENT_TRACE_TTL_MS) {
    eventTraces.delete(eventId);
    return undefined;
  }
  return hit.ctx;
}

/** `scheme://host[:port]/path` of a URL: never its query, fragment or credentials (a token may sit in any of them). */
export function safeUrl(url: URL | string): { 'url.full': string; 'server.address': string; 'server.port'?: number } {
  const u = typeof url === 'string' ? new URL(url) : url;
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : undefined;
  return { 'url.full': `${u.protocol}//${u.host}${u.pathname}`, 'server.address': u.hostname, ...(port ? { 'server.port': port } : {}) };
}
