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
 * 405 with Allow, anything else 404. A mirror router learns every route.
 */
export function installFallbacks(app: FastifyInstance) {
  const mirror = FindMyWay({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 500 });
  const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (!METHODS.includes(m as HTTPMethod)) continue;
      try {
        mirror.on(m as HTTPMethod, route.url, () => {});
      } catch {
        /* the same route registered twice (HEAD for GET): already known */
      }
    }
  });

  const allowed = (path: string) => METHODS.filter((m) => mirror.find(m, path) !== null);

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
