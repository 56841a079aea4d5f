import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError, errors } from '../../errors.js';
import { declaredLengthOver, drainPart, dropRestOfBody, multipartFailureOf } from '../../http/multipart.js';
import { hasControlCharacters } from '../../lib/names.js';
import type { RouteContext } from '../../services/index.js';
import type { StagedUpload } from '../../services/media/media-service.js';
import { PHOTO_CAP_BYTES } from '../../services/media/media-policy.js';
import { checkWebSubmission } from '../../services/submissions/submission-service.js';
import { sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import {
  assertCsrfBeforeBody,
  assertFormCsrf,
  assertFormCsrfToken,
  BOOK_PAGE_CONTENT_SECURITY_POLICY,
  CSRF_FIELD,
  ensureCsrfToken,
  formField,
  rateLimitedError,
} from '../web-security.js';
import { closedPage, rateLimitedPage, thanksPage, webFormPage, type FormBook, type FormState } from './contribute-views.js';

/** Everything in the body but the photo: the token, a name, up to 20,000 characters (4 bytes each at most). */
const FIELD_BYTES = 96 * 1024;
/** A declared Content-Length above this is refused before a byte is read: a photo at its cap, the fields, the framing. */
const FORM_CEILING_BYTES = PHOTO_CAP_BYTES + 2 * FIELD_BYTES + 16 * 1024;
const TEXT_FIELDS = ['name', 'text'] as const;

type Params = { slug: string };

/** Counted per client address before the body is read: every post, sent or refused, takes one. */
async function limitWebForm(ctx: RouteContext, ip: string): Promise<void> {
  const { webFormRateLimit, webFormRateWindowSeconds } = ctx.config.limits;
  const r = await ctx.services.rateLimiter.hit(`web_form:ip:${ip}`, webFormRateLimit, webFormRateWindowSeconds);
  if (!r.allowed) throw rateLimitedError(r.retryAfterSeconds);
}

/** The multipart parser's own limits and failures, in the page's terms. */
function fromMultipartError(err: unknown): unknown {
  switch (multipartFailureOf(err)) {
    case 'too_many_files':
      return errors.validation('Please send one photo at a time.', { field: 'file' });
    case 'file_too_large':
      return new AppError('payload_too_large', 'The photo is too large.', { limit_bytes: PHOTO_CAP_BYTES });
    case 'too_many_parts':
    case 'field_too_large':
      return new AppError('payload_too_large', 'The form is larger than this page sends.', null);
    case 'malformed':
    case 'not_multipart':
    case 'boundary_too_long':
      return errors.validation('The form arrived incomplete. Please try again.', null);
    default:
      return err;
  }
}

const controlCharacterName = () =>
  errors.validation('Your name may not contain line breaks or other control characters.', { field: 'name', reason: 'control_characters' });

const megabytes = (n: number) => `${Math.round(n / 1_048_576)} MB`;

/**
 * The contributor form of a book (the `web` channel): anyone with the link
 * (which carries the book's form key unless the book is public) sends a memory — a name, the words, an optional photo — which becomes
 * a pending submission (source web). A book that does not take memories over
 * the web now answers the same 404 page as one that does not exist.
 *
 * The POST checks what it can before reading the body: the CSRF source and
 * cookie, the per-address rate limit, the book, and a declared length over a
 * photo's cap. The body is multipart; the browser sends its parts in the
 * form's order (token, name, text, photo), so the token is checked before any
 * other part is taken and the fields before the photo streams in. The photo
 * goes through the media service's streaming intake: type from its bytes,
 * the photo cap and the book's storage, nothing kept on a refusal.
 */
export async function registerWebFormPage(web: FastifyInstance, ctx: RouteContext) {
  const csp = (reply: FastifyReply) => reply.header('content-security-policy', BOOK_PAGE_CONTENT_SECURITY_POLICY);

  /** The book whose form this request may open: its `key` query parameter must be the book's form key unless the book is public. */
  async function openBook(slug: string, query: unknown): Promise<FormBook | undefined> {
    try {
      return await ctx.services.channels.openWebForm(slug, (query as Record<string, unknown> | undefined)?.key);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return undefined;
      throw err;
    }
  }

  web.get<{ Params: Params }>('/b/:slug/', PAGE_ROUTE, async (request, reply) => {
    csp(reply);
    const book = await openBook(request.params.slug, request.query);
    if (!book) return sendHtml(reply, 404, closedPage());
    return sendHtml(reply, 200, webFormPage({ book, csrf: ensureCsrfToken(request, reply, ctx.config), maxPhotoBytes: PHOTO_CAP_BYTES }));
  });

  // The header picture: the book's cover cropped around its focal point (the form's key rule; 404 otherwise).
  web.get<{ Params: Params }>('/b/:slug/cover.jpg', PAGE_ROUTE, async (request, reply) => {
    try {
      const jpeg = await ctx.services.channels.webFormCover(request.params.slug, (request.query as Record<string, unknown> | undefined)?.key);
      return reply.header('content-type', 'image/jpeg').header('cache-control', 'private, no-cache').send(jpeg);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return sendHtml(reply, 404, closedPage());
      throw err;
    }
  });

  web.get<{ Params: Params }>('/b/:slug/thanks/', PAGE_ROUTE, async (request, reply) => {
    csp(reply);
    const book = await openBook(request.params.slug, request.query);
    if (!book) return sendHtml(reply, 404, closedPage());
    return sendHtml(reply, 200, thanksPage({ book }));
  });

  // The multipart parser only here: everywhere else in the pages a multipart body stays unreadable.
  await web.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true });

    // bodyLimit bounds an urlencoded body (no photo); a multipart one is bounded by the part limits below.
    scope.post<{ Params: Params }>('/b/:slug/', { ...PAGE_ROUTE, bodyLimit: 2 * FIELD_BYTES + 16 * 1024 }, async (request, reply) => {
      csp(reply);
      const { slug } = request.params;
      const isMultipart = request.isMultipart();
      let bodyRead = !isMultipart; // an urlencoded body is parsed before the handler (1 MB at most)
      const state: FormState = {};
      let photoSent = false;
      let staged: StagedUpload | undefined;
      let book: FormBook | undefined;
      try {
        let needsFormToken = false;
        if (isMultipart) ({ needsFormToken } = assertCsrfBeforeBody(request, ctx.config));
        else assertFormCsrf(request, ctx.config);
        await limitWebForm(ctx, request.ip);
        book = await openBook(slug, request.query);
        if (!book) throw errors.notFound('book');
        const declared = declaredLengthOver(request, FORM_CEILING_BYTES);
        if (declared !== undefined) {
          throw new AppError('payload_too_large', 'The photo is too large.', { limit_bytes: PHOTO_CAP_BYTES, content_length: declared });
        }

        if (isMultipart) {
          let tokenChecked = !needsFormToken;
          const seen = new Set<string>();
          const parts = request.parts({ limits: { files: 1, fields: 8, parts: 10, fieldSize: FIELD_BYTES, fileSize: PHOTO_CAP_BYTES + 1 } });
          for await (const part of parts) {
            if (part.type === 'field') {
              if (part.fieldname === CSRF_FIELD) {
                assertFormCsrfToken(request, String(part.value));
                tokenChecked = true;
              } else if (!tokenChecked) {
                throw errors.csrfFailed('the security token must come first in the form');
              } else if ((TEXT_FIELDS as readonly string[]).includes(part.fieldname)) {
                state[part.fieldname as 'name' | 'text'] = String(part.value);
                seen.add(part.fieldname);
              }
              continue;
            }
            if (!tokenChecked) throw errors.csrfFailed('the security token must come first in the form');
            // The name is checked before a photo streams in, when it came first (as the form sends it).
            if (state.name !== undefined && hasControlCharacters(state.name)) throw controlCharacterName();
            // An empty file input still sends a part, with no file name and no bytes.
            if (part.fieldname !== 'photo' || !part.filename) {
              await drainPart(part.file);
              continue;
            }
            photoSent = true;
            // The words are checked before minutes of photo upload, when they came first (as the form sends them).
            if (seen.size === TEXT_FIELDS.length) checkWebSubmission({ name: state.name ?? '', text: state.text ?? '' });
            staged = await ctx.services.media.stageWebPhoto(slug, { stream: part.file, filename: part.filename, declaredType: part.mimetype || null });
          }
          if (!tokenChecked) throw errors.csrfFailed('the security token (form field) is missing');
          bodyRead = true;
        } else {
          state.name = formField(request, 'name');
          state.text = formField(request, 'text');
        }
        if (state.name !== undefined && hasControlCharacters(state.name)) throw controlCharacterName();
        await ctx.services.submissions.createWebSubmission(slug, { name: state.name ?? '', text: state.text ?? '' }, staged);
      } catch (raw) {
        if (!bodyRead) dropRestOfBody(request, reply);
        if (staged) await ctx.services.media.discardStaged(staged).catch((e) => request.log.warn({ err: e }, 'could not discard a staged photo'));
        const err = fromMultipartError(raw);
        if (!(err instanceof AppError)) throw err;
        request.errorCode = err.code;
        if (err.code === 'not_found') return sendHtml(reply, 404, closedPage());
        if (err.code === 'rate_limited') {
          for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
          return sendHtml(reply, 429, rateLimitedPage({ retryAfterSeconds: Number(err.headers['retry-after']) || 60 }));
        }
        const again = (status: number, error: FormState['error']) =>
          sendHtml(reply, status, webFormPage({ book: book!, csrf: ensureCsrfToken(request, reply, ctx.config), maxPhotoBytes: PHOTO_CAP_BYTES, state: { ...state, error } }));
        // A browser never keeps a chosen file across pages.
        const photoAgain = photoSent ? ' Please add your photo again.' : '';
        if (book && err.code === 'payload_too_large') {
          return again(413, { field: 'photo', message: `That photo is too big: photos can be up to ${megabytes(PHOTO_CAP_BYTES)}. Please choose a smaller one.` });
        }
        if (book && err.code === 'plan_limit_exceeded') {
          return again(402, { field: 'photo', message: 'This book has no room for more photos right now. You can send your memory without the photo.' });
        }
        if (book && err.code === 'validation_failed') {
          const field = (err.details as { field?: string } | null)?.field;
          if (field === 'file') return again(400, { field: 'photo', message: err.message });
          if (field === 'name' && (err.details as { reason?: string }).reason === 'control_characters') return again(422, { field, message: err.message + photoAgain });
          if (field === 'name' || field === 'text') return again(400, { field, message: err.message + photoAgain });
          return again(400, { message: err.message + photoAgain });
        }
        throw err;
      }
      return reply.redirect(book.path.replace(/\/(\?|$)/, '/thanks/$1'), 303);
    });
  });
}
