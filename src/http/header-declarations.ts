import type { FastifyContextConfig } from 'fastify';

/**
 * The response headers whose presence depends on the route and the status:
 * a route (its config) or a plugin that wraps it declares on which statuses
 * it sends each one, the OpenAPI document lists them from those declarations
 * only, and the header is refused on an answer that was not declared (see
 * response-headers.ts), so the document cannot drift from what is sent.
 */
export const DECLARED_HEADERS = {
  etag: { name: 'ETag', describesResource: true },
  lastModified: { name: 'Last-Modified', describesResource: true },
  location: { name: 'Location', describesResource: true },
  retryAfter: { name: 'Retry-After', describesResource: false },
} as const;

export type DeclaredHeader = keyof typeof DECLARED_HEADERS;

/** On which statuses an answer carries each header. */
export type HeaderDeclarations = { readonly [H in DeclaredHeader]?: readonly number[] };

/** What a declaration is read from: a route as registered (onRoute) or as it runs (request.routeOptions). */
export interface DeclaringRoute {
  method: string | readonly string[];
  config?: FastifyContextConfig;
}

/** A plugin's declaration: the headers it adds to each route it wraps. */
export interface PluginHeaders {
  /** Which plugin: named in the error when a header is refused. */
  plugin: string;
  wraps: (route: DeclaringRoute) => boolean;
  headers: HeaderDeclarations;
}

const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/** A write that runs under an Idempotency-Key: the idempotency plugin's rule (see `keyed` in the catalogue's scopes). */
export function isKeyedRoute(route: DeclaringRoute): boolean {
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
  const unsafe = methods.some((m) => !SAFE_METHODS.includes(m));
  return unsafe && route.config?.idempotency !== false && (route.config?.auth ?? 'required') !== 'none';
}
