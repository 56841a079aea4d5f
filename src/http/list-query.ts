import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_LIMIT, MAX_LIMIT, type ListQuery, type Page } from '../db/pagination.js';
import { jsonPage } from '../db/sql-json.js';
import { errors } from '../errors.js';
import { httpDate, parseTimestampParam } from '../lib/time.js';
import { setDeclaredHeader } from './response-headers.js';

const PLAIN_LIMIT = /^[0-9]{1,3}$/;

/**
 * The list query every list route reads: `limit` as a plain decimal integer
 * from 1 to 200 (the schema's number coercion would take `0x10`, `1e1` or
 * `+5`, and `limit[]=1` would slip past it), `cursor`, and `updated_since`
 * (ISO 8601 or the HTTP-date of Last-Modified). Failures: 400 query_param_invalid {param, value}.
 */
export function parseListQuery(request: FastifyRequest): ListQuery {
  const raw = new URLSearchParams(request.url.split('?')[1] ?? '');
  for (const name of raw.keys()) {
    if (name !== 'limit' && name.startsWith('limit')) throw errors.queryParam('limit', raw.get(name), 'limit must be a single whole number from 1 to 200.');
  }
  const limits = raw.getAll('limit');
  let limit = DEFAULT_LIMIT;
  if (limits.length > 1) throw errors.queryParam('limit', limits, 'limit must be a single whole number from 1 to 200.');
  if (limits.length === 1) {
    const value = limits[0];
    if (!PLAIN_LIMIT.test(value) || Number(value) < 1 || Number(value) > MAX_LIMIT) {
      throw errors.queryParam('limit', value, `limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    }
    limit = Number(value);
  }
  const cursors = raw.getAll('cursor');
  if (cursors.length > 1) throw errors.queryParam('cursor', cursors, 'Send one cursor.');
  if (cursors[0] === '') throw errors.queryParam('cursor', '', 'The cursor is empty; leave it out for the first page.');
  const since = raw.getAll('updated_since');
  if (since.length > 1) throw errors.queryParam('updated_since', since, 'Send one updated_since.');
  let updatedSince: string | null = null;
  if (since.length === 1) {
    updatedSince = parseTimestampParam(since[0]) ?? null;
    if (!updatedSince) throw errors.queryParam('updated_since', since[0], 'updated_since must be an ISO 8601 timestamp or an HTTP-date.');
  }
  return { limit, cursor: cursors[0], updatedSince };
}

/**
 * The page's sync watermark, for the client to pin its next updated_since
 * to. Only on a route that declares it (`config.lastModified`), so the
 * document, built from that declaration, says what is sent.
 */
export function setLastModified(reply: FastifyReply, watermark: string) {
  setDeclaredHeader(reply, 'lastModified', httpDate(watermark));
}

/** What a list service answers: one page, and the list's sync watermark. */
export interface ListResult<T> {
  page: Page<T>;
  watermark: string;
}

/**
 * A list route's answer, alike for every list: the list query (parseListQuery,
 * read before the service runs), Last-Modified from the watermark, and the
 * page envelope `{items, next_cursor, has_more}`.
 */
export async function listResponse<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  list: (query: ListQuery) => Promise<ListResult<T>>,
): Promise<Page<T>> {
  const { page, watermark } = await list(parseListQuery(request));
  setLastModified(reply, watermark);
  return page;
}

/** listResponse for items that are JSON text already (made by the database): the envelope is written around them and sent as it is. */
export async function jsonListResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  list: (query: ListQuery) => Promise<ListResult<string>>,
): Promise<FastifyReply> {
  const page = await listResponse(request, reply, list);
  return reply.type('application/json; charset=utf-8').send(jsonPage(page));
}
