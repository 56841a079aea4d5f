/**
 * The data of `npm run bench -- scale`, made in SQL (bench/scale.ts runs it).
 *
 * Rows are written as the service would have left them: every constraint and
 * trigger the migrations define stays on, so the copies the triggers keep (a
 * membership's copies of its book's sort keys) are made by the triggers
 * themselves. Only the world's memory load skips its foreign-key checks, which
 * hold by construction, and only while those tables have no insert trigger of
 * their own (see generateWorld). What the service keeps up in its own code is
 * recomputed here from the rows (a book's last_activity_at, storage_used_bytes
 * and updated_at), with books' updated_at trigger off only inside that one
 * transaction. For speed, a big load drops the secondary indexes of the
 * memory tables first and builds them again from their own definitions.
 *
 * Everything is made through temporary tables on one connection:
 * `gen_books` (a row per book to make, `k` its number) and `gen_members` (its
 * members, `j` = 0 the owner), then books, memberships and billing records,
 * then each book's `nmem` memories with their media and the inbound rows a
 * memory from email, SMS or Telegram leaves behind.
 */
import type pg from 'pg';

/** Bumped whenever what is generated changes: a kept database with another version is made again. */
export const GENERATOR_VERSION = 2;

/** Words to cut memories from: real sentences, so sizes and compression are those of real text. */
const BASE_TEXT =
  'The summer we spent at the lake house is the one I keep coming back to. Grandma woke us at six and ' +
  'marched us down to the pier, counting to ten while we held our breath under the cold water, and then ' +
  'there were cardamom buns on the porch and coffee for the grown-ups. Nobody was allowed to leave the table ' +
  'until the crossword was done. I remember Dad trying to fix the old tractor for a whole week, swearing at it ' +
  'in two languages, and the afternoon it finally started and drove straight into the hedge. We laughed until ' +
  'we cried. Later, when we were older, it was the night drives along the coast with the radio on, singing the ' +
  'same song over and over because it was the only tape in the car. You taught me to skate on the frozen pond ' +
  'behind the school, holding both my hands and skating backwards, telling me not to look at my feet. I still ' +
  "don't know how you did that. At the wedding you gave a speech that had everyone in tears, and then you danced " +
  'with every single guest, even the ones who did not want to dance. That was you: nobody was left out. When the ' +
  'baby came you drove four hours in the snow with a pot of soup on the passenger seat, and you stayed a week and ' +
  'cooked and cleaned and sang to her at night so we could sleep. Thank you for the letters, for the birthday ' +
  'cakes shaped like castles and dinosaurs and one very strange giraffe, for the Sunday phone calls, for always ' +
  'saving me the corner piece. I hope you know how much we all love you. Happy retirement, and may every morning ' +
  'from now on start slowly, with the paper and the garden and nowhere at all to be. We will miss you at the ' +
  'office more than we can say: the Friday quizzes, the terrible puns, the way you remembered everyone\'s ' +
  'children by name. Congratulations on forty wonderful years! The first time I met you was in the kitchen at ' +
  'the Christmas party, elbow deep in dishes because you could not stand to see them pile up. ';

const FIRST_NAMES = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kemi', 'Liam', 'Maya', 'Noor', 'Oskar', 'Priya', 'Quinn', 'Rosa', 'Sam', 'Tomas', 'Uma', 'Vera', 'Wen', 'Yusuf', 'Zoe'];
const LAST_NAMES = ['Andersen', 'Baker', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Haddad', 'Ivanova', 'Jensen', 'Kowalski', 'Lopez', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Rossi', 'Schmidt', 'Tanaka', 'Weber'];
const TITLES = ['Grandma Rose turns 90', 'For Dad on his retirement', 'Our wedding', "Baby's first year", 'Farewell, Sam', 'Class of 2010 reunion', 'Remembering Uncle Jo', 'Happy 40th, Maria', 'Thank you, Coach', 'The lake house years', 'Mum, with love', 'Team memories'];
const THEMES = ['elegant_classic', 'modern_clean', 'storybook'];

const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;
const sqlArray = (xs: string[]) => `ARRAY[${xs.map(sqlText).join(', ')}]`;

/**
 * Sizes of the world the scale database holds, for a scale factor (1 = 100,000 users, 200,000 books,
 * 5,000,000 memories). The export user's 10,000 memories and the deleted book's 100,000 do not scale.
 */
export function worldSizes(factor: number) {
  // The two measured on their own keep the sizes their targets name, whatever the factor.
  const exportMemories = 10_000;
  return {
    users: Math.max(100, Math.round(100_000 * factor)),
    books: Math.max(200, Math.round(200_000 * factor)),
    /** In the world's books; the export user's memories come on top, so the two add up to the 5,000,000. */
    memories: Math.max(1_000, Math.round(5_000_000 * factor) - exportMemories),
    exportMemories,
    /** The 100,000-memory book each run deletes. */
    doomedMemories: 100_000,
  };
}

export type Log = (line: string) => void;

async function timed<T>(log: Log, what: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  log(`    ${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return out;
}

/**
 * The helpers the statements below use, in pg_temp (this connection only):
 * a deterministic pseudo-random integer per (n, stream), and a UUIDv7 for a
 * time (time-ordered like the service's own ids, so primary keys fill in order).
 */
export async function prepareGenerator(c: pg.Client, o: { tables?: 'temp' | 'shared' } = {}) {
  await c.query(`CREATE OR REPLACE FUNCTION pg_temp.rnd(n bigint, stream int) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT hashint8(n * 1000003 + stream) & 2147483647 $$`);
  await c.query(`CREATE OR REPLACE FUNCTION pg_temp.uuid7(ts timestamptz, salt text) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT (lpad(to_hex(floor(extract(epoch FROM ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(salt), 1, 3)
                  || substr('89ab', 1 + (hashtext(salt) & 3), 1) || substr(md5(salt), 4, 15))::uuid $$`);
  // 'shared': the world's tables live in the schema scale_gen (searched after public), so several
  // connections load its memories at once; they are dropped when the world is made.
  const [create, prefix] = o.tables === 'shared' ? ['CREATE TABLE', 'scale_gen.'] : ['CREATE TEMP TABLE', ''];
  if (o.tables === 'shared') await c.query('CREATE SCHEMA IF NOT EXISTS scale_gen');
  await c.query(`${create} IF NOT EXISTS ${prefix}gen_books (
      k int PRIMARY KEY, id uuid NOT NULL, slug text NOT NULL, owner_id uuid NOT NULL, title text NOT NULL, theme text NOT NULL,
      plan text NOT NULL, archived boolean NOT NULL, is_public boolean NOT NULL, created timestamptz NOT NULL, span interval NOT NULL,
      extra int NOT NULL, nmem int NOT NULL DEFAULT 0, first_g bigint NOT NULL DEFAULT 0,
      -- The member (j) who wrote every memory; NULL: each memory's author is drawn among the members and guests.
      author_j int)`);
  await c.query(`${create} IF NOT EXISTS ${prefix}gen_members (
      k int NOT NULL, j int NOT NULL, user_id uuid NOT NULL, role text NOT NULL, name text NOT NULL, email text, joined timestamptz NOT NULL,
      PRIMARY KEY (k, j))`);
}

/** Books, their first billing record and their memberships (the membership trigger copies the book's keys), for gen_books k in [from, to]. */
export async function insertBooks(c: pg.Client, from: number, to: number) {
  await c.query(
    `INSERT INTO books (id, slug, owner_id, title, theme, plan_slug, is_public, status, archived_at, created_at, updated_at, last_activity_at)
     SELECT id, slug, owner_id, title, theme, plan, is_public, CASE WHEN archived THEN 'archived' ELSE 'active' END,
            CASE WHEN archived THEN created + span END, created, CASE WHEN archived THEN created + span ELSE created END, created
     FROM gen_books WHERE k BETWEEN $1 AND $2 ORDER BY k`,
    [from, to],
  );
  await c.query(
    `INSERT INTO billing_records (id, book_id, plan_slug, status, period_start, created_at)
     SELECT pg_temp.uuid7(created, 'billing' || id), id, plan, 'active', created, created FROM gen_books WHERE k BETWEEN $1 AND $2`,
    [from, to],
  );
  await c.query(
    `INSERT INTO book_members (book_id, user_id, role, joined_at, updated_at)
     SELECT b.id, m.user_id, m.role, m.joined, m.joined FROM gen_members m JOIN gen_books b USING (k)
     WHERE k BETWEEN $1 AND $2 ORDER BY k, j ON CONFLICT DO NOTHING`,
    [from, to],
  );
}

/**
 * Each book's memories in one statement: its `nmem` rows spread over the
 * book's life, written by a member or a guest, 30 to about 1,200 characters
 * (one in fifty far longer), mostly approved (a free book at most 50, its
 * plan's cap), now and then pinned, private or edited later; a photo, voice
 * note or video with one in twenty; and the inbound row an email, SMS or
 * Telegram memory leaves (with the inbound file row for its media).
 */
export async function insertMemories(c: pg.Client, from: number, to: number, salt: string): Promise<number> {
  const rows = await c.query(
    `WITH src AS (
       SELECT b.k, b.id AS book_id, b.plan, b.extra, b.author_j, i, b.first_g + i AS g,
              b.created + b.span * (i::float8 / (b.nmem + 1)) AS created,
              pg_temp.rnd(b.first_g + i, 7) AS r, pg_temp.rnd(b.first_g + i, 8) AS r2
       FROM gen_books b CROSS JOIN LATERAL generate_series(1, b.nmem) AS i
       WHERE b.k BETWEEN $1 AND $2
     ), drawn AS (
       SELECT src.*, pg_temp.uuid7(src.created, $3 || src.g) AS id, m.user_id, m.name AS member_name, m.email AS member_email,
              CASE WHEN r % 100 < 35 THEN 'api' WHEN r % 100 < 65 THEN 'web' WHEN r % 100 < 80 THEN 'email'
                   WHEN r % 100 < 92 THEN 'sms' ELSE 'telegram' END AS source,
              CASE WHEN r2 % 100 < 70 AND (plan <> 'free' OR i <= 50) THEN 'approved' WHEN r2 % 100 >= 95 THEN 'rejected' ELSE 'pending' END AS status,
              (r2 / 128) % 900 AS len_seed
       FROM src LEFT JOIN gen_members m ON m.k = src.k AND m.j = COALESCE(src.author_j, src.r % (src.extra + 2))
     ), ins AS (
       INSERT INTO submissions (id, book_id, contributor_user_id, contributor_name, contributor_email, text_content, is_private, status,
                                is_pinned, pinned_at, rejection_reason, source, created_at, updated_at)
       SELECT id, book_id, user_id,
              COALESCE(member_name, (${sqlArray(FIRST_NAMES)})[1 + r % ${FIRST_NAMES.length}] || ' ' || (${sqlArray(LAST_NAMES)})[1 + r2 % ${LAST_NAMES.length}]),
              COALESCE(member_email, CASE WHEN r % 2 = 0 THEN 'guest-' || g || '@example.net' END),
              CASE WHEN r2 % 50 = 0 THEN substr(repeat($4::text, 6), 1 + r % 1000, 1200 + r % 6000)
                   ELSE substr($4::text, 1 + r % 700, 30 + len_seed * len_seed / 700) END,
              r % 20 = 0, status,
              status = 'approved' AND r % 53 = 0, CASE WHEN status = 'approved' AND r % 53 = 0 THEN created + interval '1 hour' END,
              CASE WHEN status = 'rejected' THEN 'Not quite right for this book.' END,
              source, created,
              CASE WHEN status = 'approved' AND r % 53 = 0 THEN created + interval '1 hour'
                   WHEN r2 % 10 = 0 THEN LEAST(created + interval '3 hours', now() - interval '1 minute') ELSE created END
       FROM drawn ORDER BY drawn.created, drawn.g
       RETURNING id, book_id, contributor_user_id, source, created_at
     ), med AS (
       INSERT INTO media (id, submission_id, book_id, uploaded_by, kind, mime_type, original_filename, size_bytes, sha256, storage_key,
                          thumbnail_key, derived_bytes, width, height, duration_seconds, processing_status, scan_result, created_at, updated_at)
       SELECT x.mid, x.id, x.book_id, x.contributor_user_id, x.kind,
              CASE x.kind WHEN 'image' THEN 'image/jpeg' WHEN 'audio' THEN 'audio/mp4' ELSE 'video/mp4' END,
              CASE x.kind WHEN 'image' THEN 'IMG_' || (x.h % 9000 + 1000) || '.jpg' WHEN 'audio' THEN 'voice-note.m4a' ELSE 'VID_' || (x.h % 9000 + 1000) || '.mp4' END,
              CASE x.kind WHEN 'image' THEN 1500000 + x.h % 2500000 WHEN 'audio' THEN 400000 + x.h % 2600000 ELSE 10000000 + x.h % 70000000 END,
              md5(x.mid::text) || md5(x.id::text), 'media/' || x.book_id || '/' || x.mid || '/original',
              CASE WHEN x.kind = 'video' THEN 'media/' || x.book_id || '/' || x.mid || '/poster.jpg' END,
              CASE WHEN x.kind = 'video' THEN 80000 + x.h % 40000 ELSE 0 END,
              CASE WHEN x.kind <> 'audio' THEN CASE WHEN x.h % 3 = 0 THEN 3024 ELSE 4032 END END,
              CASE WHEN x.kind <> 'audio' THEN CASE WHEN x.h % 3 = 0 THEN 4032 ELSE 3024 END END,
              CASE WHEN x.kind <> 'image' THEN 5 + x.h % 120 END,
              'complete', 'clean', x.created_at + interval '1 minute', x.created_at + interval '1 minute'
       FROM (SELECT ins.*, pg_temp.uuid7(ins.created_at + interval '1 minute', 'media' || ins.id) AS mid, hashtext(ins.id::text) & 2147483647 AS h,
                    CASE WHEN (hashtext(ins.id::text) & 2147483647) % 100 < 6 THEN 'audio'
                         WHEN (hashtext(ins.id::text) & 2147483647) % 100 < 10 AND gb.plan = 'premium' THEN 'video' ELSE 'image' END AS kind
             FROM ins JOIN gen_books gb ON gb.id = ins.book_id
             WHERE (hashtext(ins.id::text) & 2147483647) % 20 = 0) x
       RETURNING id, submission_id, mime_type
     ), msg AS (
       INSERT INTO inbound_messages (provider, external_id, outcome, submission_id, created_at)
       SELECT CASE source WHEN 'sms' THEN 'twilio' ELSE 'telegram' END,
              CASE source WHEN 'sms' THEN 'SM' || md5(id::text) ELSE (hashtext(id::text) & 2147483647)::text || substr(md5(id::text), 1, 6) END,
              'submitted', id, created_at
       FROM ins WHERE source IN ('sms', 'telegram')
     ), mail AS (
       INSERT INTO inbound_emails (id, book_id, dedupe_key, received_via, size_bytes, auth, outcome, submission_id, created_at, processed_at)
       SELECT pg_temp.uuid7(created_at, 'mail' || id), book_id, '<' || id || '@mail.example.net>', 'smtp', 2000 + (hashtext(id::text) & 65535),
              '{"spf": "pass", "dkim": "pass", "dmarc": "pass", "from_authenticated": true}'::jsonb, 'submitted', id, created_at, created_at + interval '2 seconds'
       FROM ins WHERE source = 'email'
     ), files AS (
       INSERT INTO inbound_media (provider, external_id, position, submission_id, ref, declared_type, status, media_id, created_at, updated_at)
       SELECT CASE ins.source WHEN 'sms' THEN 'twilio' ELSE 'telegram' END,
              CASE ins.source WHEN 'sms' THEN 'SM' || md5(ins.id::text) ELSE (hashtext(ins.id::text) & 2147483647)::text || substr(md5(ins.id::text), 1, 6) END,
              0, ins.id, 'file-' || md5(med.id::text), med.mime_type, 'attached', med.id, ins.created_at, ins.created_at + interval '1 minute'
       FROM med JOIN ins ON ins.id = med.submission_id WHERE ins.source IN ('sms', 'telegram')
     )
     SELECT count(*)::int AS n FROM ins`,
    [from, to, salt, BASE_TEXT],
  );
  return (rows.rows[0] as { n: number }).n;
}

/**
 * What the service keeps in its own code, recomputed from the rows: each
 * book's last_activity_at (its newest memory change), storage_used_bytes (its
 * media and their derived files) and updated_at (a media upload moves it).
 * books_updated_at is off for this one transaction only, so updated_at is the
 * upload's time and not this statement's; the membership copies follow
 * through their own trigger.
 */
export async function finishBooks(c: pg.Client, from: number, to: number) {
  await c.query('BEGIN');
  try {
    await c.query('ALTER TABLE books DISABLE TRIGGER books_updated_at');
    await c.query(
      `UPDATE books b
       SET last_activity_at = GREATEST(b.last_activity_at, a.last_change),
           storage_used_bytes = COALESCE(m.bytes, 0),
           updated_at = GREATEST(b.updated_at, m.last_upload)
       FROM gen_books g
       LEFT JOIN LATERAL (SELECT max(s.updated_at) AS last_change FROM submissions s WHERE s.book_id = g.id) a ON true
       LEFT JOIN LATERAL (SELECT sum(md.size_bytes + md.derived_bytes) AS bytes, max(md.created_at) AS last_upload FROM media md WHERE md.book_id = g.id) m ON true
       WHERE b.id = g.id AND g.k BETWEEN $1 AND $2`,
      [from, to],
    );
    await c.query('ALTER TABLE books ENABLE TRIGGER books_updated_at');
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  }
}

/** The secondary indexes of the memory tables (not those behind a constraint), as their definitions. */
async function secondaryIndexes(c: pg.Client): Promise<{ name: string; def: string }[]> {
  const rows = await c.query<{ name: string; def: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relname IN ('submissions', 'media', 'inbound_messages', 'inbound_emails', 'inbound_media') AND t.relnamespace = 'public'::regnamespace
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
  );
  return rows.rows;
}

/** Triggers of the memory tables that fire on INSERT, other than the foreign keys' own. */
async function insertTriggers(c: pg.Client): Promise<string[]> {
  const { rows } = await c.query<{ name: string }>(
    `SELECT t.tgrelid::regclass::text || '.' || t.tgname AS name FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid
     WHERE r.relname IN ('submissions', 'media', 'inbound_messages', 'inbound_emails', 'inbound_media') AND r.relnamespace = 'public'::regnamespace
       AND NOT t.tgisinternal AND (t.tgtype & 4) <> 0`,
  );
  return rows.map((r) => r.name);
}

/**
 * The world: `sizes.users` users (a password, some with a phone or a
 * Telegram chat, API keys and browser sessions), `sizes.books` books (most on
 * the free plan, some archived) with their owners' slots and billing, up to
 * eight members each, and `sizes.memories` memories spread unevenly over them.
 * Then the export user (exportUser) and ANALYZE. Runs on a freshly migrated database.
 */
export async function generateWorld(
  c: pg.Client,
  sizes: ReturnType<typeof worldSizes>,
  passwordHash: string,
  log: Log,
  /** Opens another connection to the same database, for loading memories `connections` at a time. */
  open: () => Promise<pg.Client>,
  connections: number,
) {
  const tune = async (x: pg.Client) => {
    await x.query(`SET maintenance_work_mem = '512MB'`);
    await x.query(`SET work_mem = '128MB'`);
    await x.query(`SET statement_timeout = 0`);
    await x.query('SET search_path TO public, scale_gen');
  };
  await tune(c);
  await c.query('DROP SCHEMA IF EXISTS scale_gen CASCADE');
  await prepareGenerator(c, { tables: 'shared' });
  await timed(log, `${sizes.users} users`, async () => {
    await c.query(
      `CREATE TABLE scale_gen.gen_users AS
       SELECT n, joined, pg_temp.uuid7(joined, 'user' || n) AS id,
              (${sqlArray(FIRST_NAMES)})[1 + pg_temp.rnd(n, 1) % ${FIRST_NAMES.length}] AS first_name,
              (${sqlArray(LAST_NAMES)})[1 + pg_temp.rnd(n, 2) % ${LAST_NAMES.length}] AS last_name
       FROM (SELECT n, now() - interval '1100 days' + (n::float8 / $1) * interval '1090 days' AS joined FROM generate_series(1, $1) AS n) x`,
      [sizes.users],
    );
    await c.query('ALTER TABLE gen_users ADD PRIMARY KEY (n)');
    await c.query(
      `INSERT INTO users (id, email, password_hash, first_name, last_name, books_sort, phone_number, telegram_chat_id, telegram_username, date_joined, updated_at)
       SELECT id, 'user-' || n || '@scale.example.org', $1, first_name, last_name,
              (ARRAY['activity', 'activity', 'activity', 'title', 'created', 'role'])[1 + pg_temp.rnd(n, 3) % 6],
              CASE WHEN pg_temp.rnd(n, 4) % 20 = 0 THEN '+1555' || lpad(n::text, 7, '0') END,
              CASE WHEN pg_temp.rnd(n, 5) % 30 = 0 THEN (700000000 + n)::text END,
              CASE WHEN pg_temp.rnd(n, 5) % 30 = 0 THEN 'tg_user_' || n END,
              joined, joined
       FROM gen_users ORDER BY n`,
      [passwordHash],
    );
    await c.query(
      `INSERT INTO api_tokens (id, user_id, name, token_hash, created_at, last_used_at)
       SELECT pg_temp.uuid7(joined + interval '1 day', 'token' || n), id, 'integration', sha256(('token' || n)::bytea), joined + interval '1 day', now() - interval '2 days'
       FROM gen_users WHERE pg_temp.rnd(n, 6) % 10 = 0`,
    );
    await c.query(
      `INSERT INTO web_sessions (id, user_id, token_hash, created_at, expires_at, ended_at)
       SELECT pg_temp.uuid7(now() - interval '3 days', 'session' || n), id, sha256(('session' || n)::bytea), now() - interval '3 days',
              now() + interval '27 days', CASE WHEN n % 3 = 0 THEN now() - interval '1 day' END
       FROM gen_users WHERE pg_temp.rnd(n, 7) % 5 = 0`,
    );
  });

  await timed(log, `${sizes.books} books, their slots, billing and members`, async () => {
    await c.query(
      `INSERT INTO gen_books (k, id, slug, owner_id, title, theme, plan, archived, is_public, created, span, extra)
       SELECT k, pg_temp.uuid7(created, 'book' || k), 'world-' || k, u.id,
              (${sqlArray(TITLES)})[1 + pg_temp.rnd(k, 12) % ${TITLES.length}], (${sqlArray(THEMES)})[1 + pg_temp.rnd(k, 13) % ${THEMES.length}],
              plan, pg_temp.rnd(k, 14) % 100 < 4, pg_temp.rnd(k, 15) % 10 = 0, created,
              (now() - interval '1 hour' - created) * 0.98, CASE plan WHEN 'free' THEN pg_temp.rnd(k, 16) % 4 ELSE pg_temp.rnd(k, 16) % 9 END
       FROM (SELECT k, 1 + pg_temp.rnd(k, 10) % $2 AS owner_n,
                    CASE WHEN pg_temp.rnd(k, 11) % 100 < 70 THEN 'free' WHEN pg_temp.rnd(k, 11) % 100 < 90 THEN 'plus' ELSE 'premium' END AS plan
             FROM generate_series(1, $1) AS k) b
       JOIN gen_users u ON u.n = b.owner_n
       CROSS JOIN LATERAL (SELECT u.joined + (now() - interval '2 hours' - u.joined) * ((pg_temp.rnd(k, 17) % 1000) / 1000.0) AS created) t`,
      [sizes.books, sizes.users],
    );
    // Memories per book: uneven (a weight of 1–47, three times that on premium), adding up to exactly sizes.memories.
    await c.query(
      `WITH w AS (SELECT k, (1 + pg_temp.rnd(k, 20) % 47) * CASE plan WHEN 'premium' THEN 3 ELSE 1 END AS weight FROM gen_books),
            c AS (SELECT k, weight, sum(weight) OVER (ORDER BY k) AS cum, sum(weight) OVER () AS total FROM w)
       UPDATE gen_books g SET nmem = ($1::bigint * c.cum / c.total - $1::bigint * (c.cum - c.weight) / c.total)::int,
                              first_g = $1::bigint * (c.cum - c.weight) / c.total
       FROM c WHERE c.k = g.k`,
      [sizes.memories],
    );
    await c.query(
      `INSERT INTO gen_members (k, j, user_id, role, name, email, joined)
       SELECT b.k, 0, u.id, 'owner', u.first_name || ' ' || u.last_name, 'user-' || u.n || '@scale.example.org', b.created
       FROM gen_books b JOIN gen_users u ON u.id = b.owner_id`,
    );
    await c.query(
      `INSERT INTO gen_members (k, j, user_id, role, name, email, joined)
       SELECT b.k, x.j, u.id, CASE WHEN x.j = 1 AND pg_temp.rnd(b.k, 21) % 4 = 0 THEN 'admin' ELSE 'contributor' END,
              u.first_name || ' ' || u.last_name, 'user-' || u.n || '@scale.example.org',
              LEAST(GREATEST(b.created, u.joined) + x.j * interval '1 day', now() - interval '1 hour')
       FROM gen_books b JOIN gen_members o ON o.k = b.k AND o.j = 0 JOIN gen_users ou ON ou.id = o.user_id
       CROSS JOIN LATERAL generate_series(1, b.extra) AS x(j)
       JOIN gen_users u ON u.n = 1 + (ou.n - 1 + x.j * 7919) % $1
       ON CONFLICT DO NOTHING`,
      [sizes.users],
    );
    await c.query('ANALYZE gen_books');
    await c.query('ANALYZE gen_members');
    await insertBooks(c, 1, sizes.books);
    await c.query(
      `INSERT INTO book_slots (user_id, plan_slug, purchased, used, updated_at)
       SELECT owner_id, plan, count(*), count(*), max(created) FROM gen_books WHERE plan <> 'free' GROUP BY owner_id, plan`,
    );
  });

  const indexes = await secondaryIndexes(c);
  for (const ix of indexes) await c.query(`DROP INDEX ${ix.name}`);
  // The memory tables' foreign keys hold by construction (every id comes from a row made above, or
  // from the same statement), so their per-row checks, a third of the load's time, are skipped
  // (session_replication_role = replica) unless these tables have a trigger of their own on insert:
  // then everything fires as it would for the service.
  const ownTriggers = await insertTriggers(c);
  const replica = ownTriggers.length === 0;
  log(replica ? '    (foreign key checks of the memory tables skipped for the load)' : `    (insert triggers ${ownTriggers.join(', ')} present: loading with every trigger)`);
  const chunk = Math.max(1_000, Math.ceil(sizes.books / 40));
  const chunks: number[] = [];
  for (let from = 1; from <= sizes.books; from += chunk) chunks.push(from);
  await timed(log, `${sizes.memories} memories with media and inbound rows (${connections} connections)`, async () => {
    const loader = async () => {
      const x = await open();
      try {
        await tune(x);
        await prepareGenerator(x, { tables: 'shared' });
        if (replica) await x.query('SET session_replication_role = replica');
        for (let from = chunks.shift(); from !== undefined; from = chunks.shift()) {
          const to = Math.min(sizes.books, from + chunk - 1);
          const t0 = performance.now();
          const n = await insertMemories(x, from, to, 'memory');
          log(`      books ${from}–${to}: ${n} memories, ${Math.round(n / ((performance.now() - t0) / 1000))}/s`);
        }
      } finally {
        await x.end();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, connections) }, loader));
  });
  await timed(log, `indexes of the memory tables built again (${indexes.length})`, async () => {
    for (const ix of indexes) await c.query(ix.def);
  });
  await timed(log, 'books: last activity, storage and updated_at from their rows', () => finishBooks(c, 1, sizes.books));
  await timed(log, `the export user (${sizes.exportMemories} memories)`, () => seedExportUser(c, sizes.exportMemories, passwordHash));
  await timed(log, 'VACUUM ANALYZE', () => c.query('VACUUM ANALYZE'));
  await c.query('DROP SCHEMA scale_gen CASCADE');
}

export const EXPORT_USER_EMAIL = 'export-user@scale.example.org';
const EXPORT_FRIEND_EMAIL = 'export-friend@scale.example.org';
const EXPORT_BOOKS = 100;

/**
 * The user whose account export is measured: `memories` memories written in
 * 100 books a friend owns (the user a contributor of each), and three books
 * of their own. Made once per database (it is found by its email after).
 */
export async function seedExportUser(c: pg.Client, memories: number, passwordHash: string): Promise<void> {
  const found = await c.query('SELECT 1 FROM users WHERE email = $1 AND deleted_at IS NULL', [EXPORT_USER_EMAIL]);
  if (found.rowCount) return;
  await prepareGenerator(c);
  const joined = "now() - interval '400 days'";
  const { rows } = await c.query<{ user_id: string; friend_id: string }>(
    `WITH u AS (INSERT INTO users (id, email, password_hash, first_name, last_name, date_joined, updated_at)
                VALUES (pg_temp.uuid7(${joined}, $1), $1, $3, 'Exporting', 'User', ${joined}, ${joined}) RETURNING id),
          f AS (INSERT INTO users (id, email, password_hash, first_name, last_name, date_joined, updated_at)
                VALUES (pg_temp.uuid7(${joined}, $2), $2, $3, 'Friend', 'Owner', ${joined}, ${joined}) RETURNING id)
     SELECT u.id AS user_id, f.id AS friend_id FROM u, f`,
    [EXPORT_USER_EMAIL, EXPORT_FRIEND_EMAIL, passwordHash],
  );
  const { user_id: userId, friend_id: friendId } = rows[0];
  const perBook = Math.ceil(memories / EXPORT_BOOKS);
  // Books k = -1 … -100 are the friend's (the user writes every memory, j = 1); -101 … -103 the user's own, with no memories.
  await c.query(
    `INSERT INTO gen_books (k, id, slug, owner_id, title, theme, plan, archived, is_public, created, span, extra, nmem, first_g, author_j)
     SELECT -i, pg_temp.uuid7(now() - interval '300 days' + i * interval '1 hour', 'export-book' || i), 'export-book-' || i,
            CASE WHEN i <= $1 THEN $2::uuid ELSE $3::uuid END, 'Friends and memories ' || i, 'elegant_classic', 'plus', false, false,
            now() - interval '300 days' + i * interval '1 hour', interval '290 days', CASE WHEN i <= $1 THEN 1 ELSE 0 END,
            CASE WHEN i <= $1 THEN GREATEST(0, LEAST($4::int, $5::int - (i - 1) * $4::int)) ELSE 0 END, 900000000000 + i * 1000000, 1
     FROM generate_series(1, $1 + 3) AS i`,
    [EXPORT_BOOKS, friendId, userId, perBook, memories],
  );
  await c.query(
    `INSERT INTO gen_members (k, j, user_id, role, name, email, joined)
     SELECT k, 0, owner_id, 'owner', CASE WHEN owner_id = $1 THEN 'Exporting User' ELSE 'Friend Owner' END,
            CASE WHEN owner_id = $1 THEN $2 ELSE $3 END, created FROM gen_books WHERE k < 0
     UNION ALL
     SELECT k, 1, $1, 'contributor', 'Exporting User', $2, created + interval '1 day' FROM gen_books WHERE k < 0 AND owner_id <> $1`,
    [userId, EXPORT_USER_EMAIL, EXPORT_FRIEND_EMAIL],
  );
  const first = -(EXPORT_BOOKS + 3);
  await insertBooks(c, first, -1);
  await c.query(
    `INSERT INTO book_slots (user_id, plan_slug, purchased, used) SELECT owner_id, 'plus', count(*), count(*) FROM gen_books WHERE k < 0 GROUP BY owner_id
     ON CONFLICT (user_id, plan_slug) DO UPDATE SET purchased = book_slots.purchased + excluded.purchased, used = book_slots.used + excluded.used`,
  );
  await insertMemories(c, first, -1, `export-${userId}`);
  await finishBooks(c, first, -1);
  await c.query('DELETE FROM gen_members WHERE k < 0');
  await c.query('DELETE FROM gen_books WHERE k < 0');
}

/**
 * The book a run deletes: `memories` memories (with media and inbound rows,
 * as any book's) in a premium book of `ownerId`, made fresh for each run.
 */
export async function seedDoomedBook(c: pg.Client, ownerId: string, slug: string, memories: number): Promise<string> {
  await prepareGenerator(c);
  const salt = `doomed-${slug}`;
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO gen_books (k, id, slug, owner_id, title, theme, plan, archived, is_public, created, span, extra, nmem, first_g)
     VALUES (-1000, pg_temp.uuid7(now() - interval '60 days', $1), $1, $2, 'A book of a hundred thousand memories', 'elegant_classic', 'premium',
             false, false, now() - interval '60 days', interval '59 days', 0, $3, 800000000000)
     RETURNING id`,
    [slug, ownerId, memories],
  );
  await c.query(
    `INSERT INTO gen_members (k, j, user_id, role, name, email, joined)
     SELECT -1000, 0, id, 'owner', first_name || ' ' || last_name, email, now() - interval '60 days' FROM users WHERE id = $1`,
    [ownerId],
  );
  await insertBooks(c, -1000, -1000);
  await c.query(
    `INSERT INTO book_slots (user_id, plan_slug, purchased, used) VALUES ($1, 'premium', 1, 1)
     ON CONFLICT (user_id, plan_slug) DO UPDATE SET purchased = book_slots.purchased + 1, used = book_slots.used + 1`,
    [ownerId],
  );
  await insertMemories(c, -1000, -1000, salt);
  await finishBooks(c, -1000, -1000);
  await c.query('DELETE FROM gen_members WHERE k = -1000');
  await c.query('DELETE FROM gen_books WHERE k = -1000');
  await c.query('ANALYZE books');
  return rows[0].id;
}
