import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../errors.js';
import { declaredLengthOver, drainPart, dropRestOfBody, multipartFailureOf } from '../../http/multipart.js';
import { hasControlCharacters } from '../../lib/names.js';
import type { RouteContext } from '../../services/index.js';
import type { StagedUpload } from '../../services/media/media-service.js';
import { PHOTO_CAP_BYTES } from '../../services/media/media-policy.js';
import { checkWebSubmission } from '../../services/submissions/submission-service.js';
import { UPLOAD_FIELDS, type UploadField } from '../../services/web-uploads/web-upload-service.js';
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
import { chooseLanguage, LANGUAGE_COOKIE, translator, type Translator } from '../i18n/i18n.js';
import { closedPage, rateLimitedPage, thanksPage, webFormPage, type FormBook, type FormField, type FormState } from './contribute-views.js';

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
      return errors.validation('Please send one photo at a time.', { field: 'file', reason: 'too_many_files' });
    case 'file_too_large':
      return errors.payloadTooLarge('The photo is too large.', { limit_bytes: PHOTO_CAP_BYTES });
    case 'too_many_parts':
    case 'field_too_large':
      return errors.payloadTooLarge('The form is larger than this page sends.', null);
    case 'malformed':
    case 'not_multipart':
    case 'boundary_too_long':
      return errors.validation('The form arrived incomplete. Please try again.', null);
    default:
      return err;
  }
}

interface ResumableFile {
  field: UploadField;
  size: number;
}

/**
 * The files the page's script will send resumably after the words are saved
 * (an urlencoded post with `uploads=photo`, `photo_size=…`, likewise `media`):
 * a declared size over the field's cap is refused now, with the words kept.
 */
function resumableFiles(request: FastifyRequest, book: FormBook): ResumableFile[] {
  const listed = (formField(request, 'uploads') ?? '').split(/[ ,]+/).filter(Boolean);
  const files: ResumableFile[] = [];
  for (const field of ['photo', 'media'] as const) {
    if (!listed.includes(field)) continue;
    // A voice note or video only where the book's plan takes audio or video (the page shows the field only there).
    if (field === 'media' && !book.mediaCapBytes) throw errors.validation('The form arrived incomplete. Please try again.', null);
    const size = Number(formField(request, `${field}_size`));
    if (!Number.isSafeInteger(size) || size < 1) throw errors.validation('The form arrived incomplete. Please try again.', null);
    if (size > UPLOAD_FIELDS[field].capBytes) throw errors.payloadTooLarge('The file is too large.', { field, limit_bytes: UPLOAD_FIELDS[field].capBytes, length: size });
    files.push({ field, size });
  }
  return files;
}

const controlCharacterName = () =>
  errors.validation('Your name may not contain line breaks or other control characters.', { field: 'name', reason: 'control_characters' });

/** A refusal in the contributor's language: which field it is about, and what to do. */
function formError(i: Translator, err: AppError): { status: number; field?: FormField; message: string } | undefined {
  const d = (err.details ?? {}) as Record<string, unknown>;
  const megabytes = Math.round(PHOTO_CAP_BYTES / 1_048_576);
  switch (err.code) {
    case 'payload_too_large':
      return { status: 413, field: 'photo', message: i.t('error.photoTooBig', { megabytes }) };
    case 'plan_limit_exceeded':
      return { status: 402, field: 'photo', message: i.t('error.noRoom') };
    case 'validation_failed':
      break;
    default:
      return undefined;
  }
  if (d.field === 'file') {
    if (d.reason === 'too_many_pixels') {
      const mp = Math.round(((Number(d.width) * Number(d.height)) / 1e6) * 10) / 10;
      return { status: 400, field: 'photo', message: i.t('error.tooManyPixels', { megapixels: mp, max: Number(d.max_pixels) / 1e6 }) };
    }
    if (d.reason === 'too_many_files') return { status: 400, field: 'photo', message: i.t('error.oneFile') };
    return { status: 400, field: 'photo', message: i.t('error.notPhoto') };
  }
  if (d.field === 'name') {
    if (d.reason === 'control_characters') return { status: 422, field: 'name', message: i.t('error.nameControl') };
    if (d.reason === 'too_long') return { status: 400, field: 'name', message: i.t('error.nameTooLong', { max: Number(d.max) }) };
    return { status: 400, field: 'name', message: i.t('error.nameMissing') };
  }
  if (d.field === 'text') {
    if (d.reason === 'too_long') return { status: 400, field: 'text', message: i.t('error.textTooLong', { max: Number(d.max), count: Number(d.length) }) };
    return { status: 400, field: 'text', message: i.t('error.textMissing') };
  }
  return { status: 400, message: i.t('error.incomplete') };
}

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

  /**
   * The page's language: a `lang` chosen with the switch (kept in a cookie for the post and the thanks page), the
   * book's language, the browser's Accept-Language (see chooseLanguage). Pages differ by it: `Vary` says so.
   */
  function languageOf(request: FastifyRequest, reply: FastifyReply, book?: FormBook): Translator {
    const chosen = (request.query as Record<string, unknown> | undefined)?.lang;
    const lang = chooseLanguage({ chosen, cookie: request.cookies[LANGUAGE_COOKIE], bookLanguage: book?.language, acceptLanguage: request.headers['accept-language'] });
    if (chosen === lang && request.cookies[LANGUAGE_COOKIE] !== lang) {
      reply.setCookie(LANGUAGE_COOKIE, lang, { path: '/', sameSite: 'lax', secure: ctx.config.http.secureCookies, httpOnly: true, maxAge: 365 * 24 * 3600 });
    }
    reply.header('content-language', lang).header('vary', 'Accept-Language, Cookie');
    return translator(lang);
  }

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
    if (!book) return sendHtml(reply, 404, closedPage(languageOf(request, reply)));
    return sendHtml(reply, 200, webFormPage(languageOf(request, reply, book), { book, csrf: ensureCsrfToken(request, reply, ctx.config), maxPhotoBytes: PHOTO_CAP_BYTES }));
  });

  // The header picture: the book's cover cropped around its focal point (the form's key rule; 404 otherwise).
  web.get<{ Params: Params }>('/b/:slug/cover.jpg', PAGE_ROUTE, async (request, reply) => {
    try {
      const jpeg = await ctx.services.channels.webFormCover(request.params.slug, (request.query as Record<string, unknown> | undefined)?.key);
      return reply.header('content-type', 'image/jpeg').header('cache-control', 'private, no-cache').send(jpeg);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return sendHtml(reply, 404, closedPage(languageOf(request, reply)));
      throw err;
    }
  });

  web.get<{ Params: Params }>('/b/:slug/thanks/', PAGE_ROUTE, async (request, reply) => {
    csp(reply);
    const book = await openBook(request.params.slug, request.query);
    if (!book) return sendHtml(reply, 404, closedPage(languageOf(request, reply)));
    return sendHtml(reply, 200, thanksPage(languageOf(request, reply, book), { book }));
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
      let declared: number | undefined;
      let resumable: ResumableFile[] = [];
      try {
        let needsFormToken = false;
        if (isMultipart) ({ needsFormToken } = assertCsrfBeforeBody(request, ctx.config));
        else assertFormCsrf(request, ctx.config);
        await limitWebForm(ctx, request.ip);
        book = await openBook(slug, request.query);
        if (!book) throw errors.notFound('book');
        // A body declared over the ceiling is refused before its photo streams in, but after its words (they come
        // first, and are small): the page that says the photo is too big keeps what was written.
        declared = declaredLengthOver(request, FORM_CEILING_BYTES);
        const tooLarge = () => errors.payloadTooLarge('The photo is too large.', { limit_bytes: PHOTO_CAP_BYTES, content_length: declared });
        if (declared !== undefined && !isMultipart) throw tooLarge();

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
            if (declared !== undefined) throw tooLarge();
            // The words are checked before minutes of photo upload, when they came first (as the form sends them).
            if (seen.size === TEXT_FIELDS.length) checkWebSubmission({ name: state.name ?? '', text: state.text ?? '' });
            staged = await ctx.services.media.stageWebPhoto(slug, { stream: part.file, filename: part.filename, declaredType: part.mimetype || null });
          }
          if (!tokenChecked) throw errors.csrfFailed('the security token (form field) is missing');
          bodyRead = true;
          if (declared !== undefined) throw tooLarge();
        } else {
          state.name = formField(request, 'name');
          state.text = formField(request, 'text');
          resumable = resumableFiles(request, book);
          photoSent = resumable.length > 0;
        }
        if (state.name !== undefined && hasControlCharacters(state.name)) throw controlCharacterName();
        const created = await ctx.services.submissions.createWebSubmission(slug, { name: state.name ?? '', text: state.text ?? '' }, staged, resumable.map((f) => f.field));
        if (resumable.length) {
          // The words are saved: the page's script now sends the files to the uploads, each with its ticket.
          return reply.code(201).type('application/json; charset=utf-8').send({
            upload_url: book.path.replace(/\/(\?|$)/, '/uploads/$1'),
            thanks_url: book.path.replace(/\/(\?|$)/, '/thanks/$1'),
            tickets: created.tickets,
          });
        }
      } catch (raw) {
        // A body declared over the ceiling is never read to its end: the connection closes after the answer.
        if (!bodyRead || declared !== undefined) dropRestOfBody(request, reply);
        if (staged) await ctx.services.media.discardStaged(staged).catch((e) => request.log.warn({ err: e }, 'could not discard a staged photo'));
        const err = fromMultipartError(raw);
        if (!(err instanceof AppError)) throw err;
        request.errorCode = err.code;
        const i = languageOf(request, reply, book);
        if (err.code === 'not_found') return sendHtml(reply, 404, closedPage(i));
        if (err.code === 'rate_limited') {
          for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
          return sendHtml(reply, 429, rateLimitedPage(i, { retryAfterSeconds: Number(err.headers['retry-after']) || 60 }));
        }
        const refusal = book && formError(i, err);
        if (!book || !refusal) throw err;
        const errs: NonNullable<FormState['errors']> = [{ field: refusal.field, message: refusal.message }];
        // A browser never keeps a chosen file across pages: a photo refused for the words' sake is asked for again, at the photo.
        if (photoSent && refusal.field !== 'photo') errs.push({ field: 'photo', message: i.t('error.photoAgain') });
        return sendHtml(
          reply,
          refusal.status,
          webFormPage(i, { book, csrf: ensureCsrfToken(request, reply, ctx.config), maxPhotoBytes: PHOTO_CAP_BYTES, state: { ...state, errors: errs } }),
        );
      }
      return reply.redirect(book.path.replace(/\/(\?|$)/, '/thanks/$1'), 303);
    });
  });
}
