import { themeStyle } from '../../media-tools/themes.js';
import { errorSummary, type FieldError } from '../form-errors.js';
import { html, type SafeHtml } from '../html.js';
import { LANGUAGE_NAMES, LANGUAGES, textLanguage, type Translator } from '../i18n/i18n.js';
import { UPLOAD_EXPIRY_SECONDS } from '../../services/web-uploads/web-upload-service.js';
import { ASSETS } from '../static/static-routes.js';
import { CSRF_FIELD } from '../web-security.js';

export interface FormBook {
  slug: string;
  title: string;
  subtitle: string;
  theme: string;
  /** The book's language (settings.language), when its owner set one. */
  language?: string;
  /** The form's path, with the book's form key when it needs one. */
  path: string;
  /** The header picture's path (the book's cover cropped around its focal point), null without a cover. */
  coverPath?: string | null;
  /** The most a voice note or video may be on the book's plan; null (or absent) when it takes neither. */
  mediaCapBytes?: number | null;
}

/** Someone's own text (a title, a subtitle): its language and direction from its letters, isolated from the page's. */
function own(text: string, book?: FormBook): SafeHtml {
  const { lang, dir } = textLanguage(text, book?.language);
  return html`<bdi dir="${dir}"${lang ? html` lang="${lang}"` : ''}>${text}</bdi>`;
}

/** The attributes that give an element holding someone's own text its language and direction. */
function ownAttrs(text: string, book?: FormBook): SafeHtml {
  const { lang, dir } = textLanguage(text, book?.language);
  return html` dir="${dir}"${lang ? html` lang="${lang}"` : ''}`;
}

/**
 * The language switch: a plain GET form (no script needed) that reloads the
 * page in the chosen language, keeping the form key; each language named in
 * itself.
 */
function languageSwitch(i: Translator, path: string | undefined): SafeHtml {
  if (!path) return html``;
  const [action, query] = path.split('?');
  const key = new URLSearchParams(query ?? '').get('key');
  return html`<form class="lang-switch" method="get" action="${action}">
  ${key ? html`<input type="hidden" name="key" value="${key}">` : ''}
  <label for="lang-select"><svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm6.9 6h-2.95a15.7 15.7 0 0 0-1.38-3.56A8.03 8.03 0 0 1 18.9 8zM12 4.04c.83 1.2 1.48 2.53 1.91 3.96h-3.82c.43-1.43 1.08-2.76 1.91-3.96zM4.26 14a7.9 7.9 0 0 1 0-4h3.38a16.5 16.5 0 0 0 0 4H4.26zm.82 2h2.95c.32 1.25.78 2.45 1.38 3.56A8 8 0 0 1 5.08 16zm2.95-8H5.08a8 8 0 0 1 4.33-3.56A15.7 15.7 0 0 0 8.03 8zM12 19.96c-.83-1.2-1.48-2.53-1.91-3.96h3.82A14 14 0 0 1 12 19.96zM14.34 14H9.66a14.7 14.7 0 0 1 0-4h4.68a14.7 14.7 0 0 1 0 4zm.25 5.56c.6-1.11 1.06-2.31 1.38-3.56h2.95a8.03 8.03 0 0 1-4.33 3.56zM16.36 14a16.5 16.5 0 0 0 0-4h3.38a7.9 7.9 0 0 1 0 4h-3.38z"/></svg> ${i.t('lang.label')}</label>
  <select id="lang-select" name="lang">
    ${LANGUAGES.map((l) => html`<option value="${l}" lang="${l}"${l === i.lang ? html` selected` : ''}>${LANGUAGE_NAMES[l]}</option>`)}
  </select>
  <button type="submit" class="lang-go">${i.t('lang.change')}</button>
</form>`;
}

/** The shell of the pages a book's contributors see: no account bar, the book's colours and title face, the page's language. */
function bookShell(i: Translator, o: { pageTitle: string; theme: string | null; head?: SafeHtml; body: SafeHtml; script?: boolean; hasErrors?: boolean; switchPath?: string }): string {
  const theme = themeStyle(o.theme ?? '').theme;
  return html`<!doctype html>
<html lang="${i.lang}" dir="${i.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${o.hasErrors ? `${i.t('error.prefix')}: ${o.pageTitle}` : o.pageTitle}</title>
<link rel="stylesheet" href="${ASSETS.bookCss.href}">
${o.script ? html`<script src="${ASSETS.tusJs.href}" defer></script>
<script src="${ASSETS.webFormJs.href}" defer></script>` : ''}
</head>
<body class="theme-${theme}">
<main class="sheet">
${languageSwitch(i, o.switchPath)}
${o.head ?? ''}
${o.body}
<p class="foot">${i.t('page.brand')}</p>
</main>
</body>
</html>
`.value;
}

function bookHead(i: Translator, book: FormBook): SafeHtml {
  return html`<header class="book-head">
  ${book.coverPath ? html`<img class="book-cover" src="${book.coverPath}" alt="" width="1200" height="400">` : ''}
  <p class="eyebrow">${i.t('form.eyebrow')}</p>
  <h1 class="book-title"${ownAttrs(book.title, book)}>${book.title}</h1>
  ${book.subtitle ? html`<p class="book-subtitle"${ownAttrs(book.subtitle, book)}>${book.subtitle}</p>` : ''}
  <hr class="rule">
</header>`;
}

export type FormField = 'name' | 'text' | 'photo';

export interface FormState {
  name?: string;
  text?: string;
  /** What was wrong, each about a field or the whole form. */
  errors?: FieldError<FormField>[];
  /** A photo was sent and not kept (a browser never keeps a chosen file across pages): the photo field says so. */
  photoLost?: boolean;
}

/** The contributor form of a book: name, memory, an optional photo. */
export function webFormPage(i: Translator, o: { book: FormBook; csrf: string; maxPhotoBytes: number; state?: FormState }): string {
  const s = o.state ?? {};
  const errs = s.errors ?? [];
  const errOf = (f: FormField) => errs.find((e) => e.field === f);
  const described = (f: FormField, hint?: string) => {
    const ids = [hint, errOf(f) ? `${f}-error` : undefined].filter(Boolean).join(' ');
    return html`${ids ? html` aria-describedby="${ids}"` : ''}${errOf(f) ? html` aria-invalid="true"` : ''}`;
  };
  const message = (f: Exclude<FormField, 'photo'>) => {
    const e = errOf(f);
    return e ? html`<p class="field-error" id="${f}-error"><span class="visually-hidden">${i.t('error.prefix')}:</span> ${e.message}</p>` : '';
  };
  const photoError = errOf('photo');
  const maxMb = Math.round(o.maxPhotoBytes / 1_048_576);
  return bookShell(i, {
    pageTitle: i.t('form.pageTitle', { title: o.book.title }),
    hasErrors: errs.length > 0,
    theme: o.book.theme,
    script: true,
    switchPath: o.book.path,
    head: bookHead(i, o.book),
    body: html`${errorSummary(errs, { heading: i.t('error.summary') })}<section class="paper" aria-labelledby="form-title">
  <h2 id="form-title">${i.t('form.heading')}</h2>
  <p class="lead">${errs.length ? i.t('form.wordsKept') : i.t('form.lead')}</p>
  <form id="memory-form" method="post" action="${o.book.path}" enctype="multipart/form-data" novalidate
    data-max-photo-bytes="${o.maxPhotoBytes}" data-max-media-bytes="${o.book.mediaCapBytes ?? 0}" data-lang="${i.lang}"
    data-msg-not-photo="${i.t('error.notPhoto')}" data-msg-too-big="${i.t('error.photoTooBigHere', { size: '%SIZE%', megabytes: maxMb })}"
    data-msg-sending="${i.t('form.sending')}" data-msg-error-prefix="${i.t('error.prefix')}"
    data-msg-saved="${i.t('upload.saved')}" data-msg-retrying="${i.t('upload.retrying')}" data-msg-cancelled="${i.t('upload.cancelled')}"
    data-msg-failed="${i.t('upload.failed')}" data-msg-send-photo="${i.t('upload.sendPhoto')}" data-msg-no-connection="${i.t('error.noConnection')}"
    data-msg-no-room="${i.t('error.noRoom')}" data-msg-too-big-any="${i.t('error.photoTooBig', { megabytes: maxMb })}"
    data-msg-saved-media="${i.t('upload.savedMedia')}" data-msg-not-media="${i.t('error.notMedia')}"
    data-msg-resume="${i.t('upload.resume')}" data-msg-resume-media="${i.t('upload.resumeMedia')}" data-resume-seconds="${UPLOAD_EXPIRY_SECONDS}"
    ${[25, 50, 75, 100].map((p) => html` data-msg-p${p}="${i.t('upload.progress', { fraction: p / 100 })}" data-msg-m${p}="${i.t('upload.progressMedia', { fraction: p / 100 })}"`)}>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <label for="name">${i.t('form.name')}</label>
    ${message('name')}
    <input type="text" id="name" name="name" value="${s.name ?? ''}" required maxlength="200" autocomplete="name" autocapitalize="words" dir="auto"${described('name')}>
    <label for="text">${i.t('form.text')}</label>
    ${message('text')}
    <textarea id="text" name="text" rows="7" required maxlength="20000" placeholder="${i.t('form.textPlaceholder')}" dir="auto"${described('text')}>${s.text ?? ''}</textarea>
    <label for="photo">${i.t('form.photo')} <span class="optional">${i.t('form.optional')}</span></label>
    <p class="hint" id="photo-hint">${i.t('form.photoHint', { megabytes: maxMb })}</p>
    <p class="field-error" id="photo-error" aria-live="polite"${photoError ? '' : html` hidden`}>${photoError ? html`<span class="visually-hidden">${i.t('error.prefix')}:</span> ${photoError.message}` : ''}</p>
    <input type="file" id="photo" name="photo" accept="image/*"${described('photo', 'photo-hint')}>
    <figure class="preview" id="photo-preview" hidden><img alt="${i.t('form.photoAlt')}"><figcaption></figcaption></figure>
    ${o.book.mediaCapBytes
      ? html`<div id="media-field" hidden>
      <label for="media">${i.t('form.media')} <span class="optional">${i.t('form.optional')}</span></label>
      <p class="hint" id="media-hint">${i.t('form.mediaHint', { megabytes: Math.round(o.book.mediaCapBytes / 1_048_576) })}</p>
      <p class="field-error" id="media-error" aria-live="polite" hidden></p>
      <input type="file" id="media" accept="audio/*,video/*" aria-describedby="media-hint">
    </div>`
      : ''}
    <div class="upload" id="upload" hidden>
      <p class="upload-status" id="upload-status"></p>
      <div class="progress" id="upload-bar" role="progressbar" aria-label="${i.t('upload.label')}" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0"><span class="progress-fill"></span></div>
      <p class="visually-hidden" id="upload-live" aria-live="polite"></p>
      <button type="button" class="stop" id="upload-cancel">${i.t('upload.cancel')}</button>
      <a class="upload-skip" id="upload-skip" href="${o.book.path.replace(/\/(\?|$)/, '/thanks/$1')}" hidden>${i.t('upload.finishWithout')}</a>
    </div>
    <button type="submit" class="send">${i.t('form.send')}</button>
    <p class="fine">${i.t('form.fine')}</p>
  </form>
</section>`,
  });
}

/** After sending: thanks, and the way to send another. */
export function thanksPage(i: Translator, o: { book: FormBook }): string {
  return bookShell(i, {
    pageTitle: i.t('thanks.pageTitle', { title: o.book.title }),
    theme: o.book.theme,
    switchPath: o.book.path.replace(/\/(\?|$)/, '/thanks/$1'),
    head: bookHead(i, o.book),
    body: html`<section class="paper thanks" aria-labelledby="thanks-title">
  <svg class="mark" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 21.35l-1.45-1.32C5.4 15.36 2 12.28 2 8.5 2 5.42 4.42 3 7.5 3c1.74 0 3.41.81 4.5 2.09C13.09 3.81 14.76 3 16.5 3 19.58 3 22 5.42 22 8.5c0 3.78-3.4 6.86-8.55 11.54L12 21.35z"/></svg>
  <h2 id="thanks-title">${i.t('thanks.heading')}</h2>
  <p class="lead">${i.h('thanks.lead', { title: o.book.title, bdi: () => own(o.book.title, o.book) })}</p>
  <a class="send secondary" href="${o.book.path}">${i.t('thanks.another')}</a>
</section>`,
  });
}

/** An unknown book, or one that takes no memories here now: the same page, so the two cannot be told apart. */
export function closedPage(i: Translator): string {
  return bookShell(i, {
    pageTitle: i.t('closed.pageTitle'),
    theme: null,
    body: html`<section class="paper" aria-labelledby="closed-title">
  <h2 id="closed-title">${i.t('closed.heading')}</h2>
  <p class="lead">${i.t('closed.lead')}</p>
  <p>${i.t('closed.help')}</p>
</section>`,
  });
}

/** Too many memories from one address in the window: what was written is still behind the back button. */
export function rateLimitedPage(i: Translator, o: { retryAfterSeconds: number }): string {
  const minutes = Math.max(1, Math.ceil(o.retryAfterSeconds / 60));
  return bookShell(i, {
    pageTitle: i.t('wait.pageTitle'),
    theme: null,
    body: html`<section class="paper" aria-labelledby="wait-title">
  <h2 id="wait-title">${i.t('wait.pageTitle')}</h2>
  <p class="lead">${i.t('wait.lead')}</p>
  <p>${i.t('wait.retry', { minutes })}</p>
</section>`,
  });
}
