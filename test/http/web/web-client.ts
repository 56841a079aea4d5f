import { randomInt, randomUUID } from 'node:crypto';
import type { TestApp } from '../../helpers/build-test-app.js';
import { multipart, type Part } from '../../helpers/multipart.js';

export interface SetCookie {
  name: string;
  value: string;
  /** Lower-cased attribute names; flags map to true. */
  attrs: Record<string, string | true>;
}

export interface PageResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  cookies: Record<string, SetCookie>;
}

export interface SubmitOptions {
  /** The hidden csrfmiddlewaretoken value; defaults to the jar's csrftoken, null leaves it out. */
  csrf?: string | null;
  /** Origin header; defaults to the site, null leaves it out. */
  origin?: string | null;
  referer?: string | null;
  headers?: Record<string, string>;
  /** The multipart boundary (a random one unless set). */
  boundary?: string;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair, ...rest] = header.split(';').map((s) => s.trim());
  const eq = pair.indexOf('=');
  const attrs: SetCookie['attrs'] = {};
  for (const a of rest) {
    const i = a.indexOf('=');
    if (i === -1) attrs[a.toLowerCase()] = true;
    else attrs[a.slice(0, i).toLowerCase()] = a.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: decodeURIComponent(pair.slice(eq + 1)), attrs };
}

function isExpired(c: SetCookie): boolean {
  if (c.attrs['max-age'] !== undefined && Number(c.attrs['max-age']) <= 0) return true;
  return typeof c.attrs.expires === 'string' && Date.parse(c.attrs.expires) <= Date.now();
}

/**
 * A minimal browser over inject: it keeps cookies, submits forms the way a
 * browser does (hidden CSRF field, Origin of the site) and has its own
 * client address, so the per-address sign-in limiter does not mix tests.
 */
export function webClient(t: TestApp, o: { ip?: string } = {}) {
  const jar = new Map<string, string>();
  const ip = o.ip ?? `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const site = t.config.http.publicOrigin;

  async function send(method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: string | Buffer): Promise<PageResponse> {
    const all = { ...headers };
    if (jar.size && !('cookie' in all)) all.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.app.inject({ method, url, headers: all, payload, remoteAddress: ip });
    const raw = res.headers['set-cookie'];
    const cookies: Record<string, SetCookie> = {};
    for (const h of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
      const c = parseSetCookie(h);
      cookies[c.name] = c;
      if (isExpired(c)) jar.delete(c.name);
      else jar.set(c.name, c.value);
    }
    return { status: res.statusCode, headers: res.headers as PageResponse['headers'], text: res.body, cookies };
  }

  return {
    ip,
    jar,
    get: (url: string, headers: Record<string, string> = {}) => send('GET', url, headers),
    /** POSTs an urlencoded form as a browser on this site would. */
    submit(url: string, fields: Record<string, string>, so: SubmitOptions = {}) {
      const csrf = so.csrf === undefined ? jar.get('csrftoken') : so.csrf;
      const body = new URLSearchParams({ ...(csrf !== null && csrf !== undefined ? { csrfmiddlewaretoken: csrf } : {}), ...fields });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...(so.headers ?? {}) };
      const origin = so.origin === undefined ? site : so.origin;
      if (origin !== null) headers.origin = origin;
      if (so.referer) headers.referer = so.referer;
      return send('POST', url, headers, body.toString());
    },
    /**
     * POSTs a multipart form as a browser on this site would: the hidden CSRF
     * field first (unless `csrf` is null), then `parts` in their order.
     */
    submitMultipart(url: string, parts: Part[], so: SubmitOptions = {}) {
      const csrf = so.csrf === undefined ? jar.get('csrftoken') : so.csrf;
      const all: Part[] = [...(csrf !== null && csrf !== undefined ? [{ name: 'csrfmiddlewaretoken', data: csrf }] : []), ...parts];
      const body = multipart(all, { boundary: so.boundary });
      const headers: Record<string, string> = { 'content-type': body.contentType, ...(so.headers ?? {}) };
      const origin = so.origin === undefined ? site : so.origin;
      if (origin !== null) headers.origin = origin;
      if (so.referer) headers.referer = so.referer;
      return send('POST', url, headers, body.payload);
    },
    cookieHeader: () => [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
    /** The jar as API credentials for t.request (session cookie, CSRF header, Referer). */
    apiSession: () => ({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), csrf: jar.get('csrftoken') ?? '', origin: site }),
  };
}
export type WebClient = ReturnType<typeof webClient>;

export const newEmail = () => `web-${randomUUID().slice(0, 8)}@example.test`;

/** The mails queued to `to` (mail.send jobs, sent or not), oldest first. */
export async function queuedMailsTo(t: TestApp, to: string): Promise<{ to: string; subject: string; text: string }[]> {
  const rows = await t.db.query<{ data: { to: string; subject: string; text: string } }>(
    `SELECT data FROM ${t.queue.schema}.job WHERE name = 'mail.send' AND data->>'to' = $1 ORDER BY created_on, id`,
    [to.toLowerCase()],
  );
  return rows.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data));
}

/** The path of the newest sign-up confirmation link mailed to `email`. */
export async function confirmationPathOf(t: TestApp, email: string): Promise<string> {
  const mails = await queuedMailsTo(t, email);
  for (const m of mails.reverse()) {
    const link = /https?:\/\/[^/\s]+(\/accounts\/confirm\/[A-Za-z0-9_-]+\/)/.exec(m.text);
    if (link) return link[1];
  }
  throw new Error(`no confirmation mail to ${email}`);
}

/** Signs up through the pages (the form, then the mailed confirmation link) and returns the signed-in client. */
export async function signUp(t: TestApp, fields: Record<string, string> = {}, client = webClient(t)) {
  await client.get('/accounts/signup/');
  const email = fields.email ?? newEmail();
  const password = fields.password ?? 'a long enough password';
  const res = await client.submit('/accounts/signup/', { email, password, ...fields });
  if (res.status !== 200 || !res.text.includes('Check your mail')) throw new Error(`sign-up failed: ${res.status} ${res.text.slice(0, 300)}`);
  const path = await confirmationPathOf(t, email);
  await client.get(path);
  const confirmed = await client.submit(path, { password });
  if (confirmed.status !== 303) throw new Error(`confirmation failed: ${confirmed.status} ${confirmed.text.slice(0, 300)}`);
  return { client, email: email.trim().toLowerCase(), password, confirmed };
}

/** The contributor form's path of a book, with its form key (`/b/{slug}/?key=…`), as its links carry it. */
export async function formPathOf(t: TestApp, slug: string, suffix = ''): Promise<string> {
  const [row] = await t.db.query<{ form_key: string; is_public: boolean }>(`SELECT form_key, is_public FROM books WHERE slug = $1`, [slug]);
  return row.is_public ? `/b/${slug}/${suffix}` : `/b/${slug}/${suffix}?key=${row.form_key}`;
}

/** The value of the hidden CSRF field in a page. */
export function formCsrf(page: string): string | undefined {
  return /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(page)?.[1];
}
