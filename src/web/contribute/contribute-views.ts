import { themeStyle } from '../../media-tools/themes.js';
import { html, type SafeHtml } from '../html.js';
import { ASSETS } from '../static/static-routes.js';
import { CSRF_FIELD } from '../web-security.js';

export interface FormBook {
  slug: string;
  title: string;
  subtitle: string;
  theme: string;
  /** The form's path, with the book's form key when it needs one. */
  path: string;
  /** The header picture's path (the book's cover cropped around its focal point), null without a cover. */
  coverPath?: string | null;
}

/** The shell of the pages a book's contributors see: no account bar, the book's colours and title face. */
function bookShell(o: { pageTitle: string; theme: string | null; head?: SafeHtml; body: SafeHtml; script?: boolean }): string {
  const theme = themeStyle(o.theme ?? '').theme;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${o.pageTitle}</title>
<link rel="stylesheet" href="${ASSETS.bookCss.href}">
${o.script ? html`<script src="${ASSETS.webFormJs.href}" defer></script>` : ''}
</head>
<body class="theme-${theme}">
<main class="sheet">
${o.head ?? ''}
${o.body}
<p class="foot">Memory Book</p>
</main>
</body>
</html>
`.value;
}

function bookHead(book: FormBook, eyebrow: string): SafeHtml {
  return html`<header class="book-head">
  ${book.coverPath ? html`<img class="book-cover" src="${book.coverPath}" alt="" width="1200" height="400">` : ''}
  <p class="eyebrow">${eyebrow}</p>
  <h1 class="book-title">${book.title}</h1>
  ${book.subtitle ? html`<p class="book-subtitle">${book.subtitle}</p>` : ''}
  <hr class="rule">
</header>`;
}

export interface FormState {
  name?: string;
  text?: string;
  /** A message for the whole form, and the field it is about, if any. */
  error?: { message: string; field?: 'name' | 'text' | 'photo' };
}

const FIELD_NAMES = { name: 'your name', text: 'your memory', photo: 'the photo' } as const;

const megabytes = (n: number) => `${Math.round(n / 1_048_576)} MB`;

/** The contributor form of a book: name, memory, an optional photo. */
export function webFormPage(o: { book: FormBook; csrf: string; maxPhotoBytes: number; state?: FormState }): string {
  const s = o.state ?? {};
  const err = s.error;
  const invalid = (field: string) => (err?.field === field ? html` aria-invalid="true" aria-describedby="${field}-error"` : '');
  const fieldError = (field: string) => (err?.field === field ? html`<p class="field-error" id="${field}-error">${err.message}</p>` : '');
  return bookShell({
    pageTitle: `Share a memory · ${o.book.title}`,
    theme: o.book.theme,
    script: true,
    head: bookHead(o.book, 'A memory book'),
    body: html`<section class="paper" aria-labelledby="form-title">
  <h2 id="form-title">Share a memory</h2>
  <p class="lead">A story, a moment, a wish: write it down, and add a photo if you have one.</p>
  ${err
    ? html`<div class="alert" role="alert"><p>${err.field
        ? html`Your memory has not been sent yet: please check <a href="#${err.field}">${FIELD_NAMES[err.field]}</a> below.`
        : err.message}</p></div>`
    : ''}
  <form id="memory-form" method="post" action="${o.book.path}" enctype="multipart/form-data" data-max-photo-bytes="${o.maxPhotoBytes}">
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}">
    <label for="name">Your name</label>
    <input type="text" id="name" name="name" value="${s.name ?? ''}" required maxlength="200" autocomplete="name" autocapitalize="words"${invalid('name')}>
    ${fieldError('name')}
    <label for="text">Your memory</label>
    <textarea id="text" name="text" rows="7" required maxlength="20000" placeholder="I remember when…"${invalid('text')}>${s.text ?? ''}</textarea>
    ${fieldError('text')}
    <label for="photo">A photo <span class="optional">(optional)</span></label>
    <input type="file" id="photo" name="photo" accept="image/*" aria-describedby="photo-hint${err?.field === 'photo' ? ' photo-error' : ''}"${err?.field === 'photo' ? html` aria-invalid="true"` : ''}>
    <p class="hint" id="photo-hint">JPEG, PNG, HEIC or WebP, up to ${megabytes(o.maxPhotoBytes)}.</p>
    <p class="field-error" id="photo-error" aria-live="polite"${err?.field === 'photo' ? '' : html` hidden`}>${err?.field === 'photo' ? err.message : ''}</p>
    <figure class="preview" id="photo-preview" hidden><img alt="The photo you chose"><figcaption></figcaption></figure>
    <button type="submit" class="send">Send my memory</button>
    <p class="fine">The book’s organiser reads every memory before it goes into the book.</p>
  </form>
</section>`,
  });
}

/** After sending: thanks, and the way to send another. */
export function thanksPage(o: { book: FormBook }): string {
  return bookShell({
    pageTitle: `Thank you · ${o.book.title}`,
    theme: o.book.theme,
    head: bookHead(o.book, 'A memory book'),
    body: html`<section class="paper thanks" aria-labelledby="thanks-title">
  <svg class="mark" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 21.35l-1.45-1.32C5.4 15.36 2 12.28 2 8.5 2 5.42 4.42 3 7.5 3c1.74 0 3.41.81 4.5 2.09C13.09 3.81 14.76 3 16.5 3 19.58 3 22 5.42 22 8.5c0 3.78-3.4 6.86-8.55 11.54L12 21.35z"/></svg>
  <h2 id="thanks-title">Thank you!</h2>
  <p class="lead">Your memory is on its way to “${o.book.title}”. The organiser will read it soon, and it will help make this book something to treasure.</p>
  <a class="send secondary" href="${o.book.path}">Share another memory</a>
</section>`,
  });
}

/** An unknown book, or one that takes no memories here now: the same page, so the two cannot be told apart. */
export function closedPage(): string {
  return bookShell({
    pageTitle: 'Memory book not found',
    theme: null,
    body: html`<section class="paper" aria-labelledby="closed-title">
  <h2 id="closed-title">This memory book isn’t open here</h2>
  <p class="lead">The link may be incomplete, or the book may not be taking memories at the moment.</p>
  <p>If someone sent you this link, check that you have all of it, or ask them for a new one.</p>
</section>`,
  });
}

/** Too many memories from one address in the window: what was written is still behind the back button. */
export function rateLimitedPage(o: { retryAfterSeconds: number }): string {
  const minutes = Math.max(1, Math.ceil(o.retryAfterSeconds / 60));
  return bookShell({
    pageTitle: 'Please wait a moment',
    theme: null,
    body: html`<section class="paper" aria-labelledby="wait-title">
  <h2 id="wait-title">Please wait a moment</h2>
  <p class="lead">A lot of memories have been sent from your connection in a short time, so this one was not sent.</p>
  <p>Please try again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}. Your browser’s back button takes you back to what you wrote.</p>
</section>`,
  });
}
