import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Deprecation } from './route-config.js';

export const MIN_SUNSET_NOTICE_DAYS = 90;

/** Refuses a deprecation whose sunset comes too soon, at registration time, so it can never ship. */
export function assertValidDeprecation(url: string, d: Deprecation): void {
  const notice = (d.sunset.getTime() - d.since.getTime()) / 86_400_000;
  if (!(notice >= MIN_SUNSET_NOTICE_DAYS)) {
    throw new Error(`Route ${url}: Sunset must be at least ${MIN_SUNSET_NOTICE_DAYS} days after Deprecation (got ${notice.toFixed(1)})`);
  }
}

/** RFC 9745 `Deprecation: @<unix seconds>`, RFC 8594 `Sunset: <HTTP-date>`, and a deprecation Link when given. */
export function deprecationHeaders(d: Deprecation): Record<string, string> {
  const h: Record<string, string> = {
    deprecation: `@${Math.floor(d.since.getTime() / 1000)}`,
    sunset: d.sunset.toUTCString(),
  };
  if (d.link) h.link = `<${d.link}>; rel="deprecation"; type="text/html"`;
  return h;
}

/** onRequest (a callback hook: the hooks every request runs stay off the promise machinery). */
export function addDeprecationHeaders(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
  const d = request.routeOptions.config?.deprecated;
  if (d) reply.headers(deprecationHeaders(d));
  done();
}
