import type { RouteShorthandOptions } from 'fastify';

/** Web pages live outside the API: no API auth hook, no OpenAPI entry. */
export const PAGE_ROUTE = {
  schema: { hide: true },
  config: { internal: true, auth: 'none' },
} as const satisfies RouteShorthandOptions;
