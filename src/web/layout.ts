import type { FastifyReply } from 'fastify';
import { errorTitle } from './form-errors.js';
import { html, type SafeHtml } from './html.js';
import { translator, type Translator } from './i18n/i18n.js';
import { ASSETS } from './static/static-routes.js';
import { CSRF_FIELD } from './web-security.js';

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** The CSRF token for forms on the page (the sign-out button needs it). */
  csrf: string;
  /** Email of the signed-in user; null when signed out. */
  signedInAs?: string | null;
  scripts?: string[];
  narrow?: boolean;
  /** The page is a form returned with errors: its title starts with "Error:" (GOV.UK's pattern). */
  hasErrors?: boolean;
  /** The page's language and direction (BCP 47; `rtl` for Arabic, Hebrew). */
  lang?: string;
  dir?: 'ltr' | 'rtl';
  /** The page's translator: its language, direction and the top bar's words. English without one. */
  i?: Translator;
}

/** The page shell: head, top bar, and the main column. */
export function renderPage(p: PageOptions): string {
  const i = p.i ?? translator('en');
  const nav = p.signedInAs
    ? html`<bdi class="who">${p.signedInAs}</bdi>
        <a href="/settings/tokens/">${i.t('nav.tokens')}</a>
        <form method="post" action="/accounts/logout/">
          <input type="hidden" name="${CSRF_FIELD}" value="${p.csrf}">
          <button type="submit" class="link">${i.t('nav.signOut')}</button>
        </form>`
    : html`<a href="/accounts/login/">${i.t('nav.signIn')}</a> <a href="/accounts/signup/">${i.t('nav.signUp')}</a>`;
  // The signed-in address is the person's own text: isolated, in its own direction.
  return html`<!doctype html>
<html lang="${p.lang ?? i.lang}" dir="${p.dir ?? i.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${errorTitle(p.title, !!p.hasErrors, i.t('error.prefix'))} · Memory Book</title>
<link rel="stylesheet" href="${ASSETS.css.href}">
${(p.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
<header class="top">
  <a class="brand" href="/">Memory Book</a>
  <nav>${nav}</nav>
</header>
<main class="${p.narrow ? 'narrow' : ''}">
${p.body}
</main>
</body>
</html>
`.value;
}

/** A page with one message, for errors (403 CSRF, 429, 500) and small confirmations. */
export function renderMessagePage(o: { title: string; message: string; csrf: string; signedInAs?: string | null; link?: { href: string; text: string }; i?: Translator }): string {
  return renderPage({
    i: o.i,
    title: o.title,
    csrf: o.csrf,
    signedInAs: o.signedInAs,
    narrow: true,
    body: html`<section class="card">
  <h1>${o.title}</h1>
  <p>${o.message}</p>
  ${o.link ? html`<p><a href="${o.link.href}">${o.link.text}</a></p>` : ''}
</section>`,
  });
}

/** Sends a rendered page; pages carry CSRF tokens and account data, so no cache keeps them. */
export function sendHtml(reply: FastifyReply, status: number, page: string) {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
}
