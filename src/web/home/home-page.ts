import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { SESSION_COOKIE } from '../../services/sessions/session-service.js';
import { html } from '../html.js';
import { requestTranslator, textLanguage, type Translator } from '../i18n/i18n.js';
import { renderPage, sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { clearSessionCookie, ensureCsrfToken } from '../web-security.js';
import { currentSession } from '../web-session.js';

type Role = 'owner' | 'admin' | 'contributor';
type Status = 'pending' | 'approved' | 'rejected';

/** How many books and memories the page shows; the API lists them all (GET /me/memberships/, /me/submissions/). */
const BOOKS_SHOWN = 50;
const MEMORIES_READ = 200;
const EXCERPT_LENGTH = 160;

const excerpt = (text: string) => (text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH - 1).trimEnd()}…` : text);

/**
 * `/`: a contributor's home. Signed out, what this is and how to sign in;
 * signed in, the books they belong to (from the same service as
 * GET /me/memberships/), each with its form link and their own memories in
 * it (GET /me/submissions/). Sign-in and the "You were added to …" mail lead here.
 */
export function registerHomePage(web: FastifyInstance, ctx: RouteContext) {
  web.get('/', PAGE_ROUTE, async (request, reply) => {
    const csrf = ensureCsrfToken(request, reply, ctx.config);
    const i = requestTranslator(request, reply, { secureCookies: ctx.config.http.secureCookies });
    const session = await currentSession(request, ctx);
    if (!session) {
      if (request.cookies[SESSION_COOKIE]) clearSessionCookie(reply, ctx.config);
      return sendHtml(reply, 200, signedOutPage(i, csrf));
    }
    const actor = session.user;
    const noSync = { updatedSince: null };
    const [memberships, memories] = await Promise.all([
      ctx.services.meLists.listMemberships(actor, { limit: BOOKS_SHOWN, ...noSync }),
      ctx.services.meLists.listSubmissions(actor, {}, { limit: MEMORIES_READ, ...noSync }),
    ]);
    const bySlug = new Map<string, { text: string; status: Status; created_at: string }[]>();
    for (const item of memories.page.items) {
      const s = JSON.parse(item) as { text_content: string; status: Status; created_at: string; book: { slug: string } };
      const list = bySlug.get(s.book.slug) ?? [];
      list.push({ text: s.text_content, status: s.status, created_at: s.created_at });
      bySlug.set(s.book.slug, list);
    }
    const books = await Promise.all(
      memberships.page.items.map(async (m) => ({
        ...m,
        formPath: m.book.status === 'active' ? await ctx.services.channels.webFormPathFor(m.book.slug) : undefined,
        memories: bySlug.get(m.book.slug) ?? [],
      })),
    );
    return sendHtml(reply, 200, signedInPage(i, { csrf, email: actor.email, books, more: memberships.page.has_more }));
  });
}

function signedOutPage(i: Translator, csrf: string): string {
  return renderPage({
    i,
    title: i.t('page.brand'),
    csrf,
    narrow: true,
    body: html`<section class="card">
  <h1>${i.t('home.signedOutHeading')}</h1>
  <p>${i.t('home.signedOutIntro')}</p>
  <p>${i.t('home.signedOutAdded')}</p>
  <p><a class="button" href="/accounts/login/">${i.t('nav.signIn')}</a> <a class="button secondary" href="/accounts/signup/">${i.t('nav.signUp')}</a></p>
</section>`,
  });
}

type HomeBook = {
  book: { slug: string; title: string; status: 'active' | 'archived' };
  role: Role;
  formPath: string | undefined;
  memories: { text: string; status: Status; created_at: string }[];
};

/** Someone's own text (a title, a memory): its language and direction from its letters, isolated from the page's. */
function own(text: string) {
  const { lang, dir } = textLanguage(text);
  return html`<bdi dir="${dir}"${lang ? html` lang="${lang}"` : ''}>${text}</bdi>`;
}

function signedInPage(i: Translator, o: { csrf: string; email: string; books: HomeBook[]; more: boolean }): string {
  const books = o.books.map(
    (b) => html`<section class="card book" data-book="${b.book.slug}">
  <h2>${own(b.book.title)}${b.book.status === 'archived' ? html` <small>(${i.t('home.archived')})</small>` : ''}</h2>
  <p class="muted">${i.t('home.role', { role: b.role })}</p>
  ${b.formPath ? html`<p><a class="button" href="${b.formPath}">${i.t('home.openForm')}</a></p>` : b.book.status === 'active' ? html`<p class="muted">${i.t('home.formClosed')}</p>` : ''}
  <h3>${i.t('home.yourMemories')}</h3>
  ${b.memories.length
    ? html`<ul class="memories">${b.memories.map((m) => html`<li><span class="status">${i.t('home.status', { status: m.status })}</span> ${own(excerpt(m.text))}</li>`)}</ul>`
    : html`<p class="muted">${i.t('home.noMemories')}</p>`}
</section>`,
  );
  return renderPage({
    i,
    title: i.t('home.yourBooks'),
    csrf: o.csrf,
    signedInAs: o.email,
    body: html`<h1>${i.t('home.yourBooks')}</h1>
${books.length ? books : html`<section class="card"><p>${i.t('home.noBooks')}</p></section>`}
${o.more ? html`<p class="muted">${i.t('home.moreBooks')}</p>` : ''}
<p class="muted"><a href="/settings/tokens/">${i.t('home.developers')}</a></p>`,
  });
}
