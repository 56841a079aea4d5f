import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadFontFile } from '../../media-tools/themes.js';
import { bookCss, FALLBACK_FONTS, THEME_TITLE_FONTS } from './book-css.js';
import { TOKENS_JS } from './tokens-js.js';
import { WEB_CSS } from './web-css.js';
import { WEB_FORM_JS } from './web-form-js.js';

interface Asset {
  path: string;
  contentType: string;
  readonly body: string;
  /** The URL pages link to: the content hash in the query, so a new release is never served from a stale cache. */
  readonly href: string;
}

/** An asset whose body (and so its hash) is made on first use, not at start: the book stylesheet measures the themes' fonts. */
function asset(path: string, contentType: string, makeBody: () => string): Asset {
  let body: string | undefined;
  let href: string | undefined;
  return {
    path,
    contentType,
    get body() {
      return (body ??= makeBody());
    },
    get href() {
      return (href ??= `${path}?v=${createHash('sha256').update(this.body).digest('base64url').slice(0, 12)}`);
    },
  };
}

/**
 * tus-js-client's browser build (MIT), served from our own origin: the form's
 * resumable uploads need no CDN. Read once from the installed package.
 */
const tusJs = () => readFileSync(createRequire(import.meta.url).resolve('tus-js-client/dist/tus.min.js'), 'utf8');

export const ASSETS = {
  css: asset('/static/web.css', 'text/css; charset=utf-8', () => WEB_CSS),
  tokensJs: asset('/static/tokens.js', 'text/javascript; charset=utf-8', () => TOKENS_JS),
  bookCss: asset('/static/book.css', 'text/css; charset=utf-8', bookCss),
  webFormJs: asset('/static/web-form.js', 'text/javascript; charset=utf-8', () => WEB_FORM_JS),
  tusJs: asset('/static/tus.min.js', 'text/javascript; charset=utf-8', tusJs),
} as const;

export function registerStaticRoutes(web: FastifyInstance) {
  for (const a of Object.values(ASSETS)) {
    web.get(a.path, { schema: { hide: true }, config: { internal: true, auth: 'none' } }, async (_request, reply) => {
      reply.header('content-type', a.contentType).header('cache-control', 'public, max-age=31536000, immutable');
      return a.body;
    });
  }
  // Each theme's title face and the fallback chain after it (OFL, from their npm packages), for the contributor pages' book title.
  for (const [url, face] of [...Object.entries(THEME_TITLE_FONTS), ...Object.entries(FALLBACK_FONTS)]) {
    web.get(url, { schema: { hide: true }, config: { internal: true, auth: 'none' } }, async (_request, reply) => {
      reply.header('content-type', face.file.endsWith('.otf') ? 'font/otf' : 'font/ttf').header('cache-control', 'public, max-age=604800');
      return loadFontFile(face);
    });
  }
}
