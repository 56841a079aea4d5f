import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { SESSION_COOKIE } from '../../services/sessions/session-service.js';
import { html } from '../html.js';
import { renderPage, sendHtml } from '../layout.js';
import { PAGE_ROUTE } from '../page-route.js';
import { clearSessionCookie, ensureCsrfToken } from '../web-security.js';
import { currentSession } from '../web-session.js';

/** Every string of the page, together (translations replace this table). */
const TEXT = {
  title: 'Memory Book',
  signedOutHeading: 'Memory books, written together',
  signedOutIntro:
    'A memory book gathers the stories, photos and voice notes of everyone who knows someone: a birthday, a retirement, a farewell. ' +
    'Whoever has the book’s link can add a memory, no account needed; the book’s owner turns them into a printed book.',
  signedOutAdded: 'Were you added to a book? Sign in with the email address the message came to, and you will find it here with the memories you sent.',
  signIn: 'Sign in',
  signUp: 'Create an account',
  yourBooks: 'Your books',
  noBooks: 'You are not in any book yet. When someone adds you to one, it appears here.',
  role: { owner: 'You own this book', admin: 'You help run this book', contributor: 'You write in this book' },
  archived: 'Archived',
  openForm: 'Add a memory',
  formClosed: 'This book is not taking memories through its form right now.',
  yourMemories: 'Your memories in it',
  noMemories: 'You have not sent a memory to this book yet.',
  status: { pending: 'Waiting for review', approved: 'In the book', rejected: 'Not included' },
  moreBooks: 'Only your first books are shown here.',
  developers: 'Developers: create an API key on the API tokens page.',
} as const;

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
    const session = await currentSession(request, ctx);
    if (!session) {
      if (request.cookies[SESSION_COOKIE]) clearSessionCookie(reply, ctx.config);
      return sendHtml(reply, 200, signedOutPage(csrf));
    }
    const actor = session.user;
    const noSync = { updatedSince: null };
    const [memberships, memories] = await Promise.all([
      ctx.services.meLists.listMemberships(actor, { limit: BOOKS_SHOWN, ...noSync }),
      ctx.services.meLists.listSubmissions(actor, {}, { limit: MEMORIES_READ, ...noSync }),
    ]);
    const bySlug = new Map<string, { text: string; status: keyof typeof TEXT.status; created_at: string }[]>();
    for (const item of memories.page.items) {
      const s = JSON.parse(item) as { text_content: string; status: keyof typeof TEXT.status; created_at: string; book: { slug: string } };
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
    return sendHtml(reply, 200, signedInPage({ csrf, email: actor.email, books, more: memberships.page.has_more }));
  });
}

function signedOutPage(csrf: string): string {
  return renderPage({
    title: TEXT.title,
    csrf,
    narrow: true,
    body: html`<section class="card">
  <h1>${TEXT.signedOutHeading}</h1>
  <p>${TEXT.signedOutIntro}</p>
  <p>${TEXT.signedOutAdded}</p>
  <p><a class="button" href="/accounts/login/">${TEXT.signIn}</a> <a class="button secondary" href="/accounts/signup/">${TEXT.signUp}</a></p>
</section>`,
  });
}

type HomeBook = {
  book: { slug: string; title: string; status: 'active' | 'archived' };
  role: keyof typeof TEXT.role;
  formPath: string | undefined;
  memories: { text: string; status: keyof typeof TEXT.status; created_at: string }[];
};

function signedInPage(o: { csrf: string; email: string; books: HomeBook[]; more: boolean }): string {
  const books = o.books.map(
    (b) => html`<section class="card book" data-book="${b.book.slug}">
  <h2>${b.book.title}${b.book.status === 'archived' ? html` <small>(${TEXT.archived})</small>` : ''}</h2>
  <p class="muted">${TEXT.role[b.role]}</p>
  ${b.formPath ? html`<p><a class="button" href="${b.formPath}">${TEXT.openForm}</a></p>` : b.book.status === 'active' ? html`<p class="muted">${TEXT.formClosed}</p>` : ''}
  <h3>${TEXT.yourMemories}</h3>
  ${b.memories.length
    ? html`<ul class="memories">${b.memories.map((m) => html`<li><span class="status">${TEXT.status[m.status]}</span> ${excerpt(m.text)}</li>`)}</ul>`
    : html`<p class="muted">${TEXT.noMemories}</p>`}
</section>`,
  );
  return renderPage({
    title: TEXT.yourBooks,
    csrf: o.csrf,
    signedInAs: o.email,
    body: html`<h1>${TEXT.yourBooks}</h1>
${books.length ? books : html`<section class="card"><p>${TEXT.noBooks}</p></section>`}
${o.more ? html`<p class="muted">${TEXT.moreBooks}</p>` : ''}
<p class="muted"><a href="/settings/tokens/">${TEXT.developers}</a></p>`,
  });
}
