import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { TOKENS_JS } from './tokens-js.js';
import { WEB_CSS } from './web-css.js';

interface Asset {
  path: string;
  contentType: string;
  body: string;
  /** The URL pages link to: the content hash in the query, so a new release is never served from a stale cache. */
  href: string;
}

function asset(path: string, contentType: string, body: string): Asset {
  const version = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return { path, contentType, body, href: `${path}?v=${version}` };
}

export const ASSETS = {
  css: asset('/static/web.css', 'text/css; charset=utf-8', WEB_CSS),
  tokensJs: asset('/static/tokens.js', 'text/javascript; charset=utf-8', TOKENS_JS),
} as const;

export function registerStaticRoutes(web: FastifyInstance) {
  for (const a of Object.values(ASSETS)) {
    web.get(a.path, { schema: { hide: true }, config: { internal: true, auth: 'none' } }, async (_request, reply) => {
      reply.header('content-type', a.contentType).header('cache-control', 'public, max-age=31536000, immutable');
      return a.body;
    });
  }
}
