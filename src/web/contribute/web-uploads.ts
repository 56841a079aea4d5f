import type { IncomingMessage } from 'node:http';
import type { Server, Upload } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../errors.js';
import { randomToken } from '../../lib/secrets.js';
import type { RouteContext } from '../../services/index.js';
import { MULTIPART_CEILING_BYTES } from '../../services/media/media-policy.js';
import { PAGE_ROUTE } from '../page-route.js';
import { assertCsrfBeforeBody, rateLimitedError } from '../web-security.js';

/** The path of a book's resumable uploads (tus): POST here creates one, its Location is `…/uploads/{id}`. */
export const uploadsPath = (slug: string) => `/b/${slug}/uploads/`;

const UPLOAD_ID_RE = /^[A-Za-z0-9_-]{32}$/;
const URL_RE = /^\/b\/([^/?]+)\/uploads\/([^/?]*)(\?.*)?$/;
const TUS_VERSION = '1.0.0';

/** The slug, the upload id (empty on creation) and the query (the form key) of a request to the uploads. */
function partsOf(url: string | undefined): { slug: string; id: string; query: string } {
  const m = URL_RE.exec(url ?? '');
  return { slug: m ? decodeURIComponent(m[1]!) : '', id: m?.[2] ?? '', query: m?.[3] ?? '' };
}

/** The form key only: nothing else of the query goes into an upload's URL. */
function keyQuery(query: string): string {
  const key = new URLSearchParams(query.slice(1)).get('key');
  return key ? `?key=${encodeURIComponent(key)}` : '';
}

/** A refusal as the tus server answers it: the status, and our error's code and message as JSON for the page's script. */
function tusError(err: unknown): { status_code: number; body: string } | undefined {
  if (!(err instanceof AppError)) return undefined;
  return { status_code: err.status, body: JSON.stringify({ code: err.code, message: err.message, details: err.details ?? null }) };
}

/**
 * The web form's resumable uploads: the tus protocol (creation, HEAD for the
 * offset, PATCH for each part, DELETE to cancel) by @tus/server, under the
 * book's form path. Each request must come from our own page (the CSRF cookie
 * and its X-CSRFToken header, this site's origin) and carry the book's form
 * key; creation takes one of the form's rate-limit hits and a ticket token
 * (tus metadata `token`) the form's post handed out with the saved words;
 * HEAD, PATCH and DELETE name an upload id (192 random bits) bound to that
 * ticket, in this book. The finished file goes through the upload intake and
 * onto the memory before the last PATCH is answered (WebUploadService.finish).
 */
export async function registerWebUploads(web: FastifyInstance, ctx: RouteContext) {
  const uploads = ctx.services.webUploads;
  let tus: Promise<Server> | undefined;

  async function build(): Promise<Server> {
    // The tus server's modules load with the first upload, not as the server starts.
    const [parts, { Server }] = await Promise.all([uploads.uploadParts(), import('@tus/server')]);
    const ids = (req: IncomingMessage) => partsOf(req.url);
    const fail = (err: unknown) => tusError(err) ?? err;
    return new Server({
      path: '/b/uploads',
      datastore: parts.datastore,
      maxSize: MULTIPART_CEILING_BYTES,
      allowedOrigins: [new URL(ctx.config.http.publicUrl).origin],
      namingFunction: () => parts.storeId(randomToken(24)),
      getFileIdFromRequest: (req) => {
        const { id } = ids(req);
        return UPLOAD_ID_RE.test(id) ? parts.storeId(id) : undefined;
      },
      generateUrl: (req, { id }) => {
        const { slug, query } = ids(req);
        return `${uploadsPath(encodeURIComponent(slug))}${parts.uploadId(id)}${keyQuery(query)}`;
      },
      async onUploadCreate(req, res, upload: Upload) {
        const metadata = { ...(upload.metadata ?? {}) };
        const token = metadata.token;
        delete metadata.token; // the ticket's token is not kept beside the parts
        try {
          await uploads.begin(ids(req).slug, token, parts.uploadId(upload.id), { length: upload.size, declaredType: metadata.filetype || null });
        } catch (err) {
          throw fail(err);
        }
        return { res, metadata };
      },
      async onUploadFinish(req, res, upload: Upload) {
        try {
          await uploads.finish(ids(req).slug, parts.uploadId(upload.id), { filename: upload.metadata?.filename || null, declaredType: upload.metadata?.filetype || null });
        } catch (err) {
          throw fail(err);
        }
        return res;
      },
      onResponseError(req, _res, err) {
        if ('status_code' in err) return undefined;
        // Ours to log: the client hears only that it failed.
        web.log.error({ err, url: req.url }, 'resumable upload failed');
        return { status_code: 500, body: JSON.stringify({ code: 'internal_error', message: 'The upload could not be stored; try again.' }) };
      },
    });
  }

  /** A refusal before the tus server: the same JSON shape, with the protocol's version header. */
  function refuse(reply: FastifyReply, err: AppError) {
    for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    return reply.code(err.status).header('tus-resumable', TUS_VERSION).type('application/json; charset=utf-8').send({ code: err.code, message: err.message });
  }

  /**
   * What is checked before the tus server sees the request: our page sent it
   * (cookie, header, origin), the form opens with this key, and per method:
   * creation takes a rate-limit hit, the others must name an upload of this
   * book's tickets. A finished ticket answers HEAD itself, complete, so a
   * client whose last answer was lost ends as the upload did.
   */
  async function handle(request: FastifyRequest<{ Params: { slug: string; id?: string } }>, reply: FastifyReply) {
    const { slug, id } = request.params;
    try {
      const { needsFormToken } = assertCsrfBeforeBody(request, ctx.config);
      if (needsFormToken) throw errors.csrfFailed('the X-CSRFToken header is missing');
      try {
        await ctx.services.channels.openWebForm(slug, (request.query as Record<string, unknown> | undefined)?.key);
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') throw errors.notFound('upload');
        throw err;
      }
      if (request.method === 'POST') {
        const { webFormRateLimit, webFormRateWindowSeconds } = ctx.config.limits;
        const r = await ctx.services.rateLimiter.hit(`web_form:ip:${request.ip}`, webFormRateLimit, webFormRateWindowSeconds);
        if (!r.allowed) throw rateLimitedError(r.retryAfterSeconds);
      } else {
        if (!id || !UPLOAD_ID_RE.test(id)) throw errors.notFound('upload');
        const ticket = await uploads.ticketOf(slug, id);
        if (ticket.finished) {
          if (request.method !== 'HEAD' || ticket.length === null) throw errors.notFound('upload');
          return reply
            .code(200)
            .header('tus-resumable', TUS_VERSION)
            .header('upload-offset', String(ticket.length))
            .header('upload-length', String(ticket.length))
            .header('cache-control', 'no-store')
            .send();
        }
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      request.errorCode = err.code;
      return refuse(reply, err);
    }
    const server = await (tus ??= build().catch((err) => {
      tus = undefined;
      throw err;
    }));
    reply.hijack();
    await server.handle(request.raw, reply.raw);
  }

  await web.register(async (scope) => {
    // The parts' bytes are the tus server's to read, straight from the socket.
    scope.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));
    scope.post('/b/:slug/uploads/', PAGE_ROUTE, handle);
    scope.route({ method: ['HEAD', 'PATCH', 'DELETE'], url: '/b/:slug/uploads/:id', ...PAGE_ROUTE, handler: handle });
  });
}
