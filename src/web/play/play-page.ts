import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { html } from '../html.js';
import { renderMessagePage, renderPage, sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { CONTENT_SECURITY_POLICY, ensureCsrfToken } from '../web-security.js';

/**
 * Where a printed book's QR code leads (/play/<token>/): the voice recording
 * or video of a memory, playing in the browser. The token is the only key;
 * an unknown one, or one whose memory was deleted, is a plain 404.
 */
export function registerPlayPage(web: FastifyInstance, ctx: RouteContext) {
  web.get<{ Params: { token: string } }>('/play/:token/', PAGE_ROUTE, async (request, reply) => {
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const found = await ctx.services.playLinks.find(request.params.token);
    if (!found) {
      request.errorCode = 'not_found';
      return sendHtml(
        reply,
        404,
        renderMessagePage({ title: 'Nothing to play here', message: 'This recording is no longer in its book, or the code was not read whole. Try scanning it again.', csrf }),
      );
    }
    // The media comes from its signed URL: that origin (ours, or the object store's) may serve it, nothing else.
    reply.header('content-security-policy', `${CONTENT_SECURITY_POLICY}; media-src ${new URL(found.url).origin}`);
    reply.header('referrer-policy', 'no-referrer');
    const player =
      found.kind === 'audio'
        ? html`<audio controls preload="metadata" src="${found.url}"></audio>`
        : html`<video controls preload="metadata" playsinline src="${found.url}"></video>`;
    const who = found.contributor ? html`<p>${found.kind === 'audio' ? 'A recording' : 'A video'} from ${found.contributor}</p>` : '';
    return sendHtml(
      reply,
      200,
      renderPage({ title: found.bookTitle, csrf, narrow: true, body: html`<section class="card"><h1>${found.bookTitle}</h1>${who}${player}</section>` }),
    );
  });
}
