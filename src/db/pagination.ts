import { START_MARK_CLASS, START_MARK_EPOCH, START_MARK_SPREAD, type Queryable } from './client.js';
import { errors } from '../errors.js';
import { hmac, safeEqual } from '../lib/secrets.js';

/**
 * The one list path: every `GET …/` list (books, submissions, members,
 * invitations, subscriptions, exports) pages through `paginate`, so they all
 * share ordering, keyset cursors bound to their list, `limit` bounds,
 * `updated_since` and the `Last-Modified` watermark.
 */

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface SortKey {
  /** SQL expression of the column (trusted, from code). */
  sql: string;
  dir: 'asc' | 'desc';
  /** Name of the field on the row that holds this key's value. */
  field: string;
  /** SQL cast of a cursor value back to the column's type. */
  cast?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** What a caller asks of a list; `limit` and `updatedSince` are already validated. */
export interface ListQuery {
  limit: number;
  cursor?: string;
  /** ISO 8601; with it the list runs in its sync ordering (oldest change first). */
  updatedSince: string | null;
}

/**
 * Cursors are keyset positions: the sort keys of the last row, the name of
 * the list they belong to, and an HMAC so a client cannot forge or edit one.
 * They stay opaque: base64url JSON plus a truncated MAC.
 */
export function createCursorCodec(secret: string) {
  const key = `cursor:${secret}`;
  return {
    encode(list: string, values: unknown[]): string {
      const body = Buffer.from(JSON.stringify({ o: list, v: values })).toString('base64url');
      return `${body}.${hmac(key, body).subarray(0, 16).toString('base64url')}`;
    },
    decode(list: string, cursor: string): unknown[] {
      const bad = () => errors.queryParam('cursor', cursor, 'The cursor is malformed, was altered, or belongs to another list or ordering.');
      const [body, mac, extra] = cursor.split('.');
      if (!body || !mac || extra !== undefined) throw bad();
      if (!safeEqual(hmac(key, body).subarray(0, 16).toString('base64url'), mac)) throw bad();
      let parsed: { o?: unknown; v?: unknown };
      try {
        parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        throw bad();
      }
      if (parsed.o !== list || !Array.isArray(parsed.v)) throw bad();
      return parsed.v;
    },
  };
}
export type CursorCodec = ReturnType<typeof createCursorCodec>;

/**
 * The keyset condition "strictly after this row". Mixed directions expand to
 * (a > x) OR (a = x AND b > y) OR … with the comparison flipped for desc keys.
 * Placeholders start at $start.
 */
export function keysetCondition(keys: SortKey[], values: unknown[], start: number): { sql: string; params: unknown[] } {
  const params = values.slice(0, keys.length);
  const ph = (i: number) => `$${start + i}${keys[i].cast ? `::${keys[i].cast}` : ''}`;
  // One direction throughout: a row comparison, which Postgres answers with a
  // range scan of the matching index, so page 2,000 costs what page 1 does.
  if (keys.every((k) => k.dir === keys[0].dir)) {
    const cols = keys.map((k) => k.sql).join(', ');
    const vals = keys.map((_, i) => ph(i)).join(', ');
    return { sql: `((${cols}) ${keys[0].dir === 'asc' ? '>' : '<'} (${vals}))`, params };
  }
  const ors: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const ands: string[] = [];
    for (let j = 0; j < i; j++) ands.push(`${keys[j].sql} = ${ph(j)}`);
    ands.push(`${keys[i].sql} ${keys[i].dir === 'asc' ? '>' : '<'} ${ph(i)}`);
    ors.push(`(${ands.join(' AND ')})`);
  }
  return { sql: `(${ors.join(' OR ')})`, params };
}

export function orderBy(keys: SortKey[]): string {
  return keys.map((k) => `${k.sql} ${k.dir.toUpperCase()}`).join(', ');
}

/** Default orderings: newest first without updated_since, oldest change first with it. */
export function createdDesc(alias: string): SortKey[] {
  return [
    { sql: `${alias}.created_at`, dir: 'desc', field: 'created_at', cast: 'timestamptz' },
    { sql: `${alias}.id`, dir: 'desc', field: 'id', cast: 'uuid' },
  ];
}
export function updatedAsc(alias: string, column = 'updated_at'): SortKey[] {
  return [
    { sql: `${alias}.${column}`, dir: 'asc', field: column, cast: 'timestamptz' },
    { sql: `${alias}.id`, dir: 'asc', field: 'id', cast: 'uuid' },
  ];
}

/**
 * The Last-Modified watermark: at or before the start of the oldest
 * transaction still open on this database, minus a second of margin, rounded down to the second.
 * `updated_at` comes from now() (a transaction's start), so any row a
 * running writer will commit later carries an updated_at at or after this
 * value. A client that pins `updated_since` to it may see a row twice but
 * never misses one. Taken before the page is read.
 *
 * pg_stat_activity shows a role without pg_read_all_stats the xact_start of
 * its own role's sessions only (NULL for the others'): then the oldest start
 * mark in pg_locks (see START_MARK in db/client.ts), which every role sees,
 * counts too, and covers our transactions under any role (a worker logged in
 * as another). A single statement outside a transaction takes no mark; the
 * second of margin covers it unless it has run longer than that. A role that
 * can read all stats sees every start in pg_stat_activity, and skips the
 * pg_locks read (it briefly takes every lock-table partition). (LEAST skips
 * a NULL: neither reading is required.)
 *
 * Any watermark read before the page's snapshot is a valid lower bound for
 * it (an older one only shows a client a few rows twice), so one reading is
 * shared by the lists read within the next WATERMARK_REUSE_MS: a writer
 * still open when it was read counted in it, and one that began later
 * stamps its rows after it. That holds because our transactions read in
 * READ COMMITTED, where each statement takes its snapshot when it starts.
 */
export function listWatermark(q: Queryable): Promise<string> {
  const now = performance.now();
  const last = watermarks.get(q);
  if (last && now - last.askedAt < WATERMARK_REUSE_MS) return last.value;
  const value = q
    .query<{ w: string }>(
      `SELECT date_trunc('second', interval '-1 second' + LEAST(now(),
         (SELECT min(xact_start) FROM pg_stat_activity WHERE datname = current_database() AND xact_start IS NOT NULL),
         CASE WHEN NOT pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') THEN
           (SELECT timestamptz '${START_MARK_EPOCH}' + make_interval(secs => min(objid::bigint)) FROM pg_locks
            WHERE locktype = 'advisory' AND objsubid = 2
              AND classid::bigint BETWEEN ${START_MARK_CLASS} AND ${START_MARK_CLASS + START_MARK_SPREAD - 1}
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
         END)) AS w`,
    )
    .then(([row]) => row.w);
  watermarks.set(q, { value, askedAt: now });
  value.catch(() => {
    if (watermarks.get(q)?.value === value) watermarks.delete(q);
  });
  return value;
}
const WATERMARK_REUSE_MS = 1000;
const watermarks = new WeakMap<Queryable, { value: Promise<string>; askedAt: number }>();

export interface ListSpec<Row> {
  /**
   * Names the list and what it is a list of, e.g. `submissions:<book id>`; a
   * cursor is only accepted by the list that made it, in the same ordering.
   */
  list: string;
  /** The ordering to use without updated_since, by name (part of the cursor's binding). */
  ordering: { name: string; keys: SortKey[] };
  /** The sync ordering (with updated_since); its first key is the change timestamp. */
  sync: SortKey[];
  /**
   * Reads one page: rows matching every condition in `where` (SQL, with
   * `params` as $1…), in `orderBy`, at most `limit` rows. Each row must hold
   * the value of every one of `keys` under its `field` (the next cursor is made of them).
   */
  select(o: { where: string[]; params: unknown[]; orderBy: string; limit: number; keys: SortKey[] }): Promise<readonly Row[]>;
  /** The first conditions and their params (the list's scope), before paging is added. */
  where?: string[];
  params?: unknown[];
}

/**
 * Reads one page of a list: watermark first, then limit + 1 rows after the
 * cursor's position (to learn has_more), and the next cursor from the last.
 */
export async function paginate<Row extends Record<string, unknown>>(
  q: Queryable,
  codec: CursorCodec,
  query: ListQuery,
  spec: ListSpec<Row>,
): Promise<{ page: Page<Row>; watermark: string }> {
  const watermark = await listWatermark(q);
  const [orderingName, keys] = query.updatedSince ? ['sync', spec.sync] : [spec.ordering.name, spec.ordering.keys];
  const binding = `${spec.list}|${orderingName}`;
  const where = [...(spec.where ?? [])];
  const params = [...(spec.params ?? [])];
  if (query.updatedSince) {
    params.push(query.updatedSince);
    where.push(`${keys[0].sql} >= $${params.length}::timestamptz`);
  }
  if (query.cursor) {
    const k = keysetCondition(keys, codec.decode(binding, query.cursor), params.length + 1);
    params.push(...k.params);
    where.push(k.sql);
  }
  const rows = await spec.select({ where, params, orderBy: orderBy(keys), limit: query.limit + 1, keys });
  const has_more = rows.length > query.limit;
  // A copy either way: the rows may be a shared read's, which no caller may change.
  const items = rows.slice(0, query.limit);
  const last = items[items.length - 1];
  return {
    watermark,
    page: { items, has_more, next_cursor: has_more && last ? codec.encode(binding, keys.map((k) => last[k.field])) : null },
  };
}
