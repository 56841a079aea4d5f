import type { FastifyInstance, FastifyReply } from 'fastify';
import { DECLARED_HEADERS, type DeclaredHeader, type DeclaringRoute, type HeaderDeclarations, type PluginHeaders } from './header-declarations.js';
import { IDEMPOTENCY_HEADERS } from './plugins/idempotency.js';
import { RATE_LIMIT_HEADERS } from './plugins/rate-limit.js';
import { OUTAGE_HEADERS } from './dependency-outage.js';

/** The plugins that add a header (and its status) to the API routes they wrap, each declaring it once. */
export const PLUGIN_HEADERS: readonly PluginHeaders[] = [IDEMPOTENCY_HEADERS, RATE_LIMIT_HEADERS, OUTAGE_HEADERS];

const HEADER_KEYS = Object.keys(DECLARED_HEADERS) as DeclaredHeader[];
/** Each declared header with its name as Fastify keeps it (lower case), worked out once rather than per answer. */
const HEADER_NAMES = HEADER_KEYS.map((key) => [key, DECLARED_HEADERS[key].name.toLowerCase()] as const);

/** A route's own declarations, from its config (`lastModified` is a list's 200). */
function routeDeclarations(route: DeclaringRoute): HeaderDeclarations {
  const rc = route.config ?? {};
  return { etag: rc.etag, lastModified: rc.lastModified ? [200] : undefined, location: rc.location, retryAfter: rc.retryAfter };
}

const declaredByConfig = new WeakMap<object, Map<string, Record<DeclaredHeader, number[]>>>();

/** Every header a route may send, and on which statuses: its own declarations and those of the plugins that wrap it. */
export function declaredHeadersOf(route: DeclaringRoute): Record<DeclaredHeader, number[]> {
  // A running route's config is one object for its life: worked out once per route (and method: a config may be shared).
  const methods = String(route.method);
  const known = route.config && declaredByConfig.get(route.config)?.get(methods);
  if (known) return known;
  const parts = [routeDeclarations(route), ...PLUGIN_HEADERS.filter((p) => p.wraps(route)).map((p) => p.headers)];
  const out = {} as Record<DeclaredHeader, number[]>;
  for (const key of HEADER_KEYS) out[key] = [...new Set(parts.flatMap((d) => d[key] ?? []))].sort((a, b) => a - b);
  if (route.config) declaredByConfig.set(route.config, (declaredByConfig.get(route.config) ?? new Map()).set(methods, out));
  return out;
}

/** Headers that describe a resource made or sent (ETag, Location, Last-Modified): an error answer names none. */
export const RESOURCE_HEADERS = Object.values(DECLARED_HEADERS)
  .filter((h) => h.describesResource)
  .map((h) => h.name.toLowerCase());

declare module 'fastify' {
  interface FastifyInstance {
    /** An undeclared header throws (tests, development), or is logged as an error and left out (production). */
    undeclaredHeaderThrows: boolean;
  }
}

/** Per app: whether an undeclared header throws; the guard below reads it. */
export function installHeaderGuard(app: FastifyInstance, options: { throws: boolean }): void {
  app.decorate('undeclaredHeaderThrows', options.throws);
}

/**
 * Refuses a header the route did not declare for this status: the document
 * would not list it. Throws where mistakes should be loud; in production the
 * answer still goes out, without the header, and the error is logged.
 */
function refuse(reply: FastifyReply, header: DeclaredHeader): void {
  const route = reply.request.routeOptions;
  const message =
    `${route.method} ${route.url} sends ${DECLARED_HEADERS[header].name} on ${reply.statusCode} without declaring it ` +
    `(config.${header} on the route, or the plugin that adds it)`;
  if (reply.server.undeclaredHeaderThrows) throw new Error(message);
  reply.log.error({ header: DECLARED_HEADERS[header].name, status: reply.statusCode, route: route.url }, message);
}

function declaredOn(reply: FastifyReply, header: DeclaredHeader): boolean {
  return declaredHeadersOf(reply.request.routeOptions)[header].includes(reply.statusCode);
}

/** Sets a declared header on the answer's status (set the status first), or refuses it. */
export function setDeclaredHeader(reply: FastifyReply, header: DeclaredHeader, value: string): FastifyReply {
  if (declaredOn(reply, header)) return reply.header(DECLARED_HEADERS[header].name.toLowerCase(), value);
  refuse(reply, header);
  return reply;
}

/** The resource's etag, as the ETag header (the route declares `config.etag` with this status). */
export const setEtag = (reply: FastifyReply, etag: string) => setDeclaredHeader(reply, 'etag', etag);
/** Where the resource made lives (the route declares `config.location` with this status). */
export const setLocation = (reply: FastifyReply, path: string) => setDeclaredHeader(reply, 'location', path);
/** Seconds to wait before retrying (declared by the route's `config.retryAfter`, or by the plugin that answers the status). */
export const setRetryAfter = (reply: FastifyReply, seconds: number) => setDeclaredHeader(reply, 'retryAfter', String(seconds));

/**
 * onSend on the API routes: whatever set them (a handler, an error's
 * headers, a replay), the declared headers an answer carries must be
 * declared for its status. The router's own answers (404, 405, 308) have no
 * route and pass.
 */
export function checkDeclaredHeaders(request: { is404: boolean }, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) {
  if (request.is404 || !reply.request.routeOptions.url) return done(null, payload);
  for (const [header, name] of HEADER_NAMES) {
    if (!reply.hasHeader(name) || declaredOn(reply, header)) continue;
    // Gone before the refusal, so the error's own answer does not carry it again.
    reply.removeHeader(name);
    try {
      refuse(reply, header);
    } catch (err) {
      return done(err as Error);
    }
  }
  done(null, payload);
}
