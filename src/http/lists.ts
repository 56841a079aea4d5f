import type { FastifyReply } from 'fastify';
import type { Queryable } from '../db/client.js';
import { errors } from '../errors.js';
import { hmac, safeEqual } from '../lib/secrets.js';
import { httpDate, parseTimestampParam } from '../lib/time.js';

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

export interface ListParams {
  limit: number;
  updatedSince: string | null;
  /** Key values of the last row of the previous page. */
  after: unknown[] | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Cursors are keyset positions: the sort keys of the last row, the name of
 * the ordering they belong to, and an HMAC so a client cannot forge or edit
 * one. They stay opaque: base64url JSON plus a truncated MAC.
 */
export function createCursorCodec(secret: string) {
  const key = `cursor:${secret}`;
  return {
    encode(ordering: string, values: unknown[]): string {
      const body = Buffer.from(JSON.stringify({ o: ordering, v: values })).toString('base64url');
      return `${body}.${hmac(key, body).subarray(0, 16).toString('base64url')}`;
    },
    decode(ordering: string, cursor: string): unknown[] {
      const bad = () => errors.queryParam('cursor', cursor, 'The cursor is malformed, was altered, or belongs to another ordering of this list.');
      const [body, mac, extra] = cursor.split('.');
      if (!body || !mac || extra !== undefined) throw bad();
      if (!safeEqual(hmac(key, body).subarray(0, 16).toString('base64url'), mac)) throw bad();
      let parsed: { o?: unknown; v?: unknown };
      try {
        parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        throw bad();
      }
      if (parsed.o !== ordering || !Array.isArray(parsed.v)) throw bad();
      return parsed.v;
    },
  };
}
export type CursorCodec = ReturnType<typeof createCursorCodec>;

/** Validates `updated_since` (ISO 8601 or HTTP-date); 400 query_param_invalid with {param, value}. */
export function parseUpdatedSince(value: string | undefined): string | null {
  if (value === undefined) return null;
  const parsed = parseTimestampParam(value);
  if (!parsed) throw errors.queryParam('updated_since', value, 'updated_since must be an ISO 8601 timestamp or an HTTP-date.');
  return parsed;
}

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
export function updatedAsc(alias: string): SortKey[] {
  return [
    { sql: `${alias}.updated_at`, dir: 'asc', field: 'updated_at', cast: 'timestamptz' },
    { sql: `${alias}.id`, dir: 'asc', field: 'id', cast: 'uuid' },
  ];
}

/** Trims the extra row fetched to learn `has_more` and builds the next cursor from the last row. */
export function toPage<T extends Record<string, unknown>>(
  rows: T[],
  limit: number,
  keys: SortKey[],
  codec: CursorCodec,
  ordering: string,
): Page<T> {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    items,
    has_more,
    next_cursor: has_more && last ? codec.encode(ordering, keys.map((k) => last[k.field])) : null,
  };
}

/**
 * The Last-Modified watermark: at or before the start of the oldest
 * transaction still open on this database, minus a second of margin, rounded down to the second.
 * `updated_at` comes from now() (a transaction's start), so any row a
 * running writer will commit later carries an updated_at at or after this
 * value. A client that pins `updated_since` to it may see a row twice but
 * never misses one. Taken before the page is read.
 */
export async function listWatermark(q: Queryable): Promise<string> {
  const [row] = await q.query<{ w: string }>(
    `SELECT date_trunc('second', interval '-1 second' + LEAST(now(), COALESCE(
       (SELECT min(xact_start) FROM pg_stat_activity WHERE datname = current_database() AND xact_start IS NOT NULL), now()))) AS w`,
  );
  return row.w;
}

export function setLastModified(reply: FastifyReply, watermark: string) {
  reply.header('last-modified', httpDate(watermark));
}
