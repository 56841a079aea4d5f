import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HTTPMethod } from 'find-my-way';
import FindMyWay from 'find-my-way';
import { errors } from '../errors.js';
import { NOT_ERRORS, redirectToSlashed } from './not-errors.js';
import type { HeaderDeclarations } from './header-declarations.js';

/** What the router adds to every route: its path without the trailing slash answers 308 to it, with Location (the body: MovedBody). */
export const REDIRECT_TO_SLASHED: { status: number; headers: HeaderDeclarations } = {
  status: NOT_ERRORS.moved.status,
  headers: { location: [NOT_ERRORS.moved.status] },
};

/**
 * Answers what no route matched: the documented path without its trailing
 * slash gets 308 to it (query kept; not an error, see not-errors.ts), a known path with another method gets
 * 405 with Allow, anything else 404. A mirror router learns every route (on the first
 * request no route matched, so the start does not build it).
 */
export function installFallbacks(app: FastifyInstance) {
  const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  // The routes are noted as they are registered; the mirror router learns them on the first unmatched request, not at start.
  const routes: [HTTPMethod, string][] = [];
  let mirror: ReturnType<typeof FindMyWay> | undefined;

  const learn = (router: ReturnType<typeof FindMyWay>, m: HTTPMethod, url: string) => {
    try {
      router.on(m, url, () => {});
    } catch {
      /* the same route registered twice (HEAD for GET): already known */
    }
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (!METHODS.includes(m as HTTPMethod)) continue;
      if (mirror) learn(mirror, m as HTTPMethod, route.url);
      else routes.push([m as HTTPMethod, route.url]);
    }
  });

  const mirrorRouter = () => {
    if (!mirror) {
      mirror = FindMyWay({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 500 });
      for (const [m, url] of routes) learn(mirror, m, url);
      routes.length = 0;
    }
    return mirror;
  };

  const allowed = (path: string) => {
    const router = mirrorRouter();
    return METHODS.filter((m) => router.find(m, path) !== null);
  };

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const [path, query] = splitUrl(request.url);
    if (!path.endsWith('/') && allowed(path + '/').length) {
      return redirectToSlashed(request, reply, path, query);
    }
    const methods = allowed(path);
    if (methods.length) {
      reply.header('allow', methods.join(', '));
      throw errors.methodNotAllowed(`Method ${request.method} is not allowed here; use ${methods.join(', ')}.`, { allowed: methods });
    }
    throw errors.notFound();
  });
}

function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?');
  return i === -1 ? [url, ''] : [url.slice(0, i), url.slice(i + 1)];
}
