/**
 * The access table of every /books/{slug}/… operation, generated from the
 * served OpenAPI document: each operation declares `x-book-access` (least
 * role, write or read, grace-period answer, plan feature, own rows only),
 * and the cases and their expected answers follow from it. A route added
 * later is covered without touching the table; a new path parameter, a body
 * with required fields, or a state a route needs first goes in the tables
 * at the end of this file.
 */
import type { RequestOptions, TestApp } from './build-test-app.js';
import { addMember, newBook, newSubmission, newUser, setGrace, type TestUser } from './factories.js';
import { findBookOwner } from '../../src/services/members/member-repository.js';
import { fillPath, listOperations, type Operation } from './robustness/operations.js';
import { Readable } from 'node:stream';

export const BOOK_ROUTES = '/api/v1/books/{slug}/';

export type MinRole = 'owner' | 'admin' | 'contributor' | 'visible';

/** The `x-book-access` extension as the document serves it. */
export interface BookAccess {
  action: string;
  min_role: MinRole;
  write: boolean;
  allowed_in_grace: boolean;
  /** The answer of a write refused during the grace period; null where the operation is allowed then. */
  grace_status: 403 | 423 | null;
  feature: string | null;
  /** A contributor may act only on rows they wrote (their own submission). */
  own_rows_only: boolean;
}

export interface BookOperation extends Operation {
  access: BookAccess | null;
}

export interface PlanSummary {
  slug: string;
  is_default: boolean;
  features: Record<string, boolean>;
}

/** Every operation under /books/{slug}/, with its extension (null when it has none). */
export function bookOperations(doc: { paths: Record<string, Record<string, any>> }): BookOperation[] {
  return listOperations(doc)
    .filter((op) => op.template.startsWith(BOOK_ROUTES))
    .map((op) => ({ ...op, access: doc.paths[op.template][op.method.toLowerCase()]['x-book-access'] ?? null }));
}

/** What is wrong with an operation's extension: missing, malformed, or at odds with the operation. */
export function accessProblems(op: BookOperation): string[] {
  const a = op.access;
  const name = `${op.method} ${op.template} (${op.operationId})`;
  if (!a) return [`${name}: no x-book-access`];
  const out: string[] = [];
  if (typeof a.action !== 'string' || !a.action) out.push(`${name}: action must name the action`);
  if (!['owner', 'admin', 'contributor', 'visible'].includes(a.min_role)) out.push(`${name}: min_role ${JSON.stringify(a.min_role)}`);
  if (a.write !== (op.method !== 'GET')) out.push(`${name}: write is ${a.write} on a ${op.method}`);
  if (typeof a.allowed_in_grace !== 'boolean') out.push(`${name}: allowed_in_grace must be a boolean`);
  const refusedInGrace = a.write && !a.allowed_in_grace;
  if (refusedInGrace ? ![403, 423].includes(a.grace_status as number) : a.grace_status !== null) {
    out.push(`${name}: grace_status ${a.grace_status} (${refusedInGrace ? '403 or 423' : 'null'} expected)`);
  }
  if (a.feature !== null && typeof a.feature !== 'string') out.push(`${name}: feature must be a string or null`);
  if (typeof a.own_rows_only !== 'boolean') out.push(`${name}: own_rows_only must be a boolean`);
  if (a.own_rows_only && !op.pathParams.some((p) => p.name in ROW_PARAMS)) out.push(`${name}: own_rows_only without a row in the path`);
  return out;
}

export type Caller = 'owner' | 'admin' | 'contributor' | 'contributor, own row' | "contributor, another's row" | 'outsider' | 'anonymous' | 'revoked key';

/** The callers of a role case; where a contributor may act on their own rows only, both sides of that line. */
export function callersFor(op: BookOperation): Caller[] {
  const contributor: Caller[] = op.access?.own_rows_only ? ['contributor, own row', "contributor, another's row"] : ['contributor'];
  return ['owner', 'admin', ...contributor, 'outsider', 'anonymous', 'revoked key'];
}

export type Outcome = { success: true } | { success: false; status: number; code: string };

const RANK: Record<MinRole, number> = { visible: 0, contributor: 1, admin: 2, owner: 3 };
const refused = (status: number, code: string): Outcome => ({ success: false, status, code });

/** The contract's answer ("Roles and visibility") for one caller on one book. */
export function expectedOutcome(a: BookAccess, caller: Caller, isPublic: boolean): Outcome {
  if (caller === 'anonymous' || caller === 'revoked key') return refused(401, 'unauthorized');
  if (caller === 'outsider') {
    if (!isPublic) return refused(404, 'not_found');
    return a.min_role === 'visible' ? { success: true } : refused(403, 'insufficient_role');
  }
  const rank = caller === 'owner' ? 3 : caller === 'admin' ? 2 : 1;
  if (rank < RANK[a.min_role]) return refused(403, 'insufficient_role');
  // The book is visible to them, so another's row is 403, not 404.
  if (a.own_rows_only && caller === "contributor, another's row") return refused(403, 'insufficient_role');
  return { success: true };
}

/** The people of every case's book; each case gets a fresh book with them as its members. */
export interface People {
  owner: TestUser;
  admin: TestUser;
  contributor: TestUser;
  /** A second contributor, who writes the rows that are not the caller's own. */
  otherContributor: TestUser;
  outsider: TestUser;
  /** A real API key of the owner's, already revoked. */
  revokedKey: string;
}

export function credentials(people: People, caller: Caller): RequestOptions {
  switch (caller) {
    case 'anonymous':
      return {};
    case 'revoked key':
      return { token: people.revokedKey };
    case 'owner':
    case 'admin':
    case 'outsider':
      return { token: people[caller].token };
    default:
      return { token: people.contributor.token };
  }
}

/** The plan a case's book is on: the default plan, unless the operation needs a feature it lacks. */
export function planFor(a: BookAccess, plans: PlanSummary[]): PlanSummary {
  const plan = a.feature ? plans.find((p) => p.features[a.feature!]) : plans.find((p) => p.is_default);
  if (!plan) throw new Error(`no shipped plan ${a.feature ? `with ${a.feature}` : 'is the default'}`);
  return plan;
}

export interface Arranged {
  bookId: string;
  slug: string;
  url: string;
}

/**
 * A fresh book for one case (so an archive or delete in one case cannot
 * break the next), its members, and a row for every row parameter in the
 * path, written by the caller when `ownRow` and by another contributor
 * otherwise; then whatever state the operation needs first (PREPARE).
 */
export async function arrange(t: TestApp, people: People, op: BookOperation, o: { isPublic: boolean; plan: string; ownRow: boolean; grace?: boolean }): Promise<Arranged> {
  const book = await newBook(t, people.owner, { isPublic: o.isPublic, plan: o.plan });
  await addMember(t, book.slug, people.admin, 'admin');
  await addMember(t, book.slug, people.contributor, 'contributor');
  await addMember(t, book.slug, people.otherContributor, 'contributor');
  const params: Record<string, string> = { slug: book.slug };
  for (const p of op.pathParams) {
    if (p.name === 'slug') continue;
    const row = ROW_PARAMS[`${op.operationId}:${p.name}`] ?? ROW_PARAMS[p.name];
    if (!row) throw new Error(`${op.operationId}: no fixture for the path parameter {${p.name}}; add one to ROW_PARAMS in test/helpers/access-cases.ts`);
    params[p.name] = await row(t, book.slug, o.ownRow ? people.contributor : people.otherContributor, params);
  }
  const url = fillPath(op.template, params);
  await PREPARE[op.operationId]?.(t, people, params);
  if (o.grace) await setGrace(t, book.slug, true);
  const [{ id }] = await t.db.query<{ id: string }>('SELECT id FROM books WHERE slug = $1', [book.slug]);
  return { bookId: id, slug: book.slug, url };
}

/** A 1×1 PNG: the smallest real image, for upload routes. */
const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** How to send the operation a valid request: a JSON body (bodyFor), or a file for an upload route. */
export function sendFor(op: BookOperation): RequestOptions {
  if (!op.multipart) return { body: bodyFor(op) };
  const boundary = 'accesscase';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="access.png"\r\nContent-Type: image/png\r\n\r\n`),
    TINY_PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A valid body for the operation (VALID_BODIES, else none where the schema allows that, else `{}`), checked against its schema. */
export function bodyFor(op: BookOperation): unknown {
  if (!op.body) return undefined;
  const body = op.operationId in VALID_BODIES ? VALID_BODIES[op.operationId] : op.body.isValid(null) ? undefined : {};
  if (body !== undefined && !op.body.isValid(body)) {
    throw new Error(`${op.operationId}: no valid request body; add one to VALID_BODIES in test/helpers/access-cases.ts`);
  }
  return body;
}

/** Everything stored about one book; a refused request must leave it exactly as it was. */
export async function bookState(t: TestApp, bookId: string): Promise<string> {
  const [row] = await t.db.query<{ state: string }>(
    `SELECT concat_ws(' | ',
       (SELECT to_jsonb(b)::text FROM books b WHERE b.id = $1),
       (SELECT string_agg(to_jsonb(m)::text, ',' ORDER BY m.user_id) FROM book_members m WHERE m.book_id = $1),
       (SELECT string_agg(to_jsonb(r)::text, ',' ORDER BY r.id) FROM billing_records r WHERE r.book_id = $1),
       (SELECT string_agg(to_jsonb(s)::text, ',' ORDER BY s.id) FROM submissions s WHERE s.book_id = $1),
       (SELECT string_agg(to_jsonb(md)::text, ',' ORDER BY md.id) FROM media md WHERE md.book_id = $1),
       (SELECT string_agg(to_jsonb(i)::text, ',' ORDER BY i.id) FROM invitations i WHERE i.book_id = $1),
       (SELECT string_agg(to_jsonb(n)::text, ',' ORDER BY n.id) FROM notification_subscriptions n WHERE n.book_id = $1)) AS state`,
    [bookId],
  );
  return row.state;
}

// ---- The tables to extend when routes land ----

/**
 * Path parameters that name a row of the book, and how to make one written by
 * `author`: by name, or by `operationId:name` where one name means different
 * rows on different routes (`{id}` is a submission or an invitation).
 */
const ROW_PARAMS: Record<string, (t: TestApp, slug: string, author: TestUser, params: Record<string, string>) => Promise<string>> = {
  id: async (t, slug, author) => (await newSubmission(t, slug, author)).id,
  // A photo on the submission {id} (path parameters are filled in order), uploaded by the owner.
  media_id: async (t, slug, _author, params) => {
    const owner = await findBookOwner(t.db, slug);
    const media = t.services.media;
    const staged = await media.stageUpload(owner, slug, params.id, { stream: Readable.from([TINY_PNG]), filename: 'access.png', declaredType: 'image/png' });
    return (await t.db.transaction((tx) => media.attachUpload(tx, owner, slug, params.id, staged))).id;
  },
  // A member of the book (the contributor among the case's people).
  user_id: async (_t, _slug, author) => author.user.id,
  // A voice note on the submission {id}: only audio and video can be transcribed.
  'requestTranscription:media_id': (t, slug, _author, params) => voiceNote(t, slug, params.id),
  'getTranscription:media_id': (t, slug, _author, params) => voiceNote(t, slug, params.id),
  'updateTranscription:media_id': (t, slug, _author, params) => voiceNote(t, slug, params.id),
  'revokeBookInvitation:id': async (t, slug) => {
    const owner = await findBookOwner(t.db, slug);
    const invitation = await t.db.transaction((tx) =>
      t.services.invitations.createInvitation(tx, owner, slug, { identifier_type: 'email', identifier: `row-${crypto.randomUUID().slice(0, 8)}@example.test` }),
    );
    return invitation.id;
  },
  // A notification subscription of `author` (the caller's own when the case is about own rows), made as the operator CLI does.
  'cancelBookSubscription:id': async (t, slug, author) =>
    (await t.services.subscriptions.createSubscription({ slug, email: author.email, kind: 'new_submission' })).id,
  // An export of the book (JSON: the default plan's format), requested by the owner and rendered here, as the worker
  // would: an owner may have only 10 unfinished exports, and the cases make many books of one owner.
  job_id: async (t, slug) => {
    const owner = await findBookOwner(t.db, slug);
    const job = await t.db.transaction((tx) => t.services.exports.requestExport(tx, owner, slug, { theme: 'modern_clean', export_format: 'json' }));
    await t.services.exportPipeline.run(job.id, { signal: new AbortController().signal, attempt: 1, attempts: 4 });
    return job.id;
  },
  // The artifact needs a finished export: rendered here, as the worker would.
  'getExportArtifact:job_id': async (t, slug) => {
    const owner = await findBookOwner(t.db, slug);
    const job = await t.db.transaction((tx) => t.services.exports.requestExport(tx, owner, slug, { theme: 'modern_clean', export_format: 'json' }));
    await t.services.exportPipeline.run(job.id, { signal: new AbortController().signal, attempt: 1, attempts: 4 });
    return job.id;
  },
};

/** A user with an account who is a member of none of the cases' books: addBookMember adds them. */
const ACCESS_NEWCOMER = 'access-newcomer@example.test';

/** Bodies for operations whose schema needs more than nothing or `{}`, by operationId. */
const VALID_BODIES: Record<string, unknown> = {
  updateBook: { subtitle: 'Access check' },
  createSubmission: { text_content: 'An access check' },
  updateSubmission: { text_content: 'Edited in an access check' },
  updateTranscription: { text: 'Happy birthday, dear Rose.' },
  rejectSubmission: { reason: 'An access check' },
  addBookMember: { email: ACCESS_NEWCOMER, role: 'contributor' },
  createBookInvitation: { identifier_type: 'email', identifier: 'access-invitee@example.test' },
  createExport: { theme: 'modern_clean', export_format: 'json' },
};

/** State an operation needs before it can succeed, by operationId (set up by the owner). */
/**
 * A voice note on the submission, whatever the book's plan: a file staged as
 * the photo is, then marked as audio (the access rules read only its kind;
 * no worker processes it here).
 */
async function voiceNote(t: TestApp, slug: string, submissionId: string): Promise<string> {
  const owner = await findBookOwner(t.db, slug);
  const media = t.services.media;
  const staged = await media.stageUpload(owner, slug, submissionId, { stream: Readable.from([TINY_PNG]), filename: 'voice.png', declaredType: 'image/png' });
  const { id } = await t.db.transaction((tx) => media.attachUpload(tx, owner, slug, submissionId, staged));
  await t.db.query(`UPDATE media SET kind = 'audio', mime_type = 'audio/mpeg' WHERE id = $1`, [id]);
  return id;
}

/** A completed transcript of the voice note {media_id}, as the worker leaves it. */
async function completedTranscript(t: TestApp, params: Record<string, string>): Promise<void> {
  await t.db.query(
    `INSERT INTO transcriptions (media_id, book_id, submission_id, status, language, text, completed_at)
     SELECT m.id, m.book_id, m.submission_id, 'completed', 'en', 'Happy birthday, Rose.', now() FROM media m WHERE m.id = $1`,
    [params.media_id],
  );
}

const PREPARE: Record<string, (t: TestApp, people: People, params: Record<string, string>) => Promise<void>> = {
  addBookMember: async (t) => {
    const [known] = await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [ACCESS_NEWCOMER]);
    if (!known) await newUser(t, { email: ACCESS_NEWCOMER });
  },
  getTranscription: (t, _p, params) => completedTranscript(t, params),
  updateTranscription: (t, _p, params) => completedTranscript(t, params),
  restoreBook: async (t, p, { slug }) => must(await t.post(`/api/v1/books/${slug}/archive/`, undefined, { token: p.owner.token })),
  pinSubmission: async (t, p, { slug, id }) => must(await t.post(`/api/v1/books/${slug}/submissions/${id}/approve/`, undefined, { token: p.owner.token })),
  unpinSubmission: async (t, p, { slug, id }) => {
    must(await t.post(`/api/v1/books/${slug}/submissions/${id}/approve/`, undefined, { token: p.owner.token }));
    must(await t.post(`/api/v1/books/${slug}/submissions/${id}/pin/`, undefined, { token: p.owner.token }));
  },
};

function must(res: { status: number; text: string }) {
  if (res.status >= 300) throw new Error(`preparing a case failed: ${res.status} ${res.text}`);
}
