import type { Config } from '../../config/config.js';
import type { Db, Tx } from '../../db/client.js';
import { createdDesc, paginate, updatedAsc, type CursorCodec, type ListQuery } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import { assertIfMatch, etagOf } from '../../lib/etag.js';
import { isUuid, uuidv7 } from '../../lib/ids.js';
import type { Actor } from '../books/book-access.js';
import { EVENT_TYPES, type EventType } from '../events/event-types.js';
import { EVENT_TIME_SQL } from '../events/record-event.js';
import { toAttempt, toDelivery, toEndpoint } from './endpoint-mapper.js';
import {
  administeredSlugs,
  countEndpoints,
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  updateEndpoint,
  type AttemptRow,
  type DeliveryRow,
  type EndpointChanges,
  type EndpointRow,
} from './endpoint-repository.js';
import { newSigningSecret, type SecretBox } from './signing.js';
import { UrlRefused, type UrlGuard } from './url-guard.js';

/** At most this many endpoints a user. */
export const MAX_ENDPOINTS_PER_USER = 16;
/** After a rotation the previous secret signs too, for this long. */
export const PREVIOUS_SECRET_SECONDS = 24 * 3600;

export interface EndpointInput {
  url?: string;
  description?: string;
  event_types?: EventType[] | null;
  book_slugs?: string[] | null;
  status?: 'enabled' | 'disabled';
}

/** A URL the guard refused, as the API answers it: 400 validation_failed with details.reason. */
function refused(err: unknown): never {
  if (err instanceof UrlRefused) throw errors.validation(err.message, { field: 'url', reason: err.reason });
  throw err;
}

/** A disabled endpoint is sent nothing: a test ping or a redelivery to it is 409 invalid_state. */
function mustBeEnabled(endpoint: EndpointRow, action: 'test' | 'retry') {
  if (endpoint.status === 'enabled') return;
  const what = action === 'test' ? 'a test event' : 'a redelivery';
  throw errors.invalidState(`This webhook endpoint is disabled (${endpoint.disabled_reason ?? 'manual'}): enable it (PATCH status "enabled") before asking for ${what}.`, {
    action,
    status: 'disabled',
    allowed_from: ['enabled'],
  });
}

const uniq = <T extends string>(values: T[]) => [...new Set(values)];

/**
 * A user's webhook endpoints. URLs are checked by the SSRF guard (which may
 * resolve a name) before any transaction opens: `checkUrl` is a route's
 * prepare phase, the writes take the request's `tx`.
 */
export function createWebhookEndpointService(deps: { db: Db; config: Pick<Config, 'secretKey'>; cursors: CursorCodec; guard: UrlGuard; secrets: SecretBox }) {
  const { db, cursors, guard, secrets } = deps;

  async function mustFind(q: Tx | Db, actor: Actor, id: string, forUpdate = false): Promise<EndpointRow> {
    if (!isUuid(id)) throw errors.notFound('webhook endpoint');
    const row = await findEndpoint(q, actor.id, id, { forUpdate });
    if (!row) throw errors.notFound('webhook endpoint');
    return row;
  }

  /** book_slugs must name books the user owns or administers now (400 otherwise, naming the first that does not). */
  async function checkSlugs(q: Tx, actor: Actor, slugs: string[] | null | undefined) {
    if (!slugs) return slugs;
    const clean = uniq(slugs);
    const known = await administeredSlugs(q, actor.id, clean);
    const unknown = clean.find((s) => !known.has(s));
    if (unknown !== undefined) throw errors.validation(`book_slugs: you do not own or administer a book "${unknown}".`, { field: 'book_slugs', reason: 'unknown_book', value: unknown });
    return clean;
  }

  return {
    /** The URL's form and addresses, before any transaction: 400 validation_failed with details.reason. */
    async checkUrl(url: string | undefined): Promise<void> {
      if (url === undefined) return;
      await guard.checkUrl(url).catch(refused);
    },

    async listEndpoints(actor: Actor, query: ListQuery) {
      const { page, watermark } = await paginate<EndpointRow & Record<string, unknown>>(db, cursors, query, {
        list: `webhook_endpoints:${actor.id}`,
        ordering: { name: 'created', keys: createdDesc('w') },
        sync: updatedAsc('w'),
        where: [`w.user_id = $1`],
        params: [actor.id],
        select: (o) => db.query(`SELECT w.* FROM webhook_endpoints w WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT ${o.limit}`, o.params),
      });
      return { page: { ...page, items: page.items.map(toEndpoint) }, watermark };
    },

    async getEndpoint(actor: Actor, id: string) {
      return toEndpoint(await mustFind(db, actor, id));
    },

    /** Creates an endpoint (its URL checked by checkUrl first); the answer carries the secret, this once. */
    async createEndpoint(tx: Tx, actor: Actor, input: EndpointInput & { url: string }) {
      // The user's row lock makes the count and the insert one step: two creates cannot both take the 16th place.
      await tx.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [actor.id]);
      if ((await countEndpoints(tx, actor.id)) >= MAX_ENDPOINTS_PER_USER) {
        throw errors.validation(`At most ${MAX_ENDPOINTS_PER_USER} webhook endpoints a user.`, { reason: 'too_many_endpoints', limit: MAX_ENDPOINTS_PER_USER });
      }
      const secret = newSigningSecret();
      const row = await insertEndpoint(tx, {
        id: uuidv7(),
        userId: actor.id,
        url: guard.parse(input.url).href,
        description: input.description ?? '',
        eventTypes: input.event_types ? uniq(input.event_types) : null,
        bookSlugs: (await checkSlugs(tx, actor, input.book_slugs)) ?? null,
        secretSealed: secrets.seal(secret),
      });
      return { ...toEndpoint(row), secret };
    },

    /** Partial update under an optional If-Match; enabling again clears disabled_reason. */
    async updateEndpoint(tx: Tx, actor: Actor, id: string, patch: EndpointInput, ifMatch: string | undefined) {
      const current = await mustFind(tx, actor, id, true);
      assertIfMatch(ifMatch, etagOf(current.updated_at));
      const changes: EndpointChanges = {};
      if (patch.url !== undefined && guard.parse(patch.url).href !== current.url) changes.url = guard.parse(patch.url).href;
      if (patch.description !== undefined && patch.description !== current.description) changes.description = patch.description;
      if (patch.event_types !== undefined) changes.event_types = patch.event_types && uniq(patch.event_types);
      if (patch.book_slugs !== undefined) changes.book_slugs = (await checkSlugs(tx, actor, patch.book_slugs)) ?? null;
      if (patch.status !== undefined && patch.status !== current.status) {
        changes.status = patch.status;
        changes.disabled_reason = patch.status === 'disabled' ? 'manual' : null;
      }
      if (!Object.keys(changes).length) return toEndpoint(current);
      // Arrays are written as given (null included); the SQL treats undefined as "unchanged".
      return toEndpoint(await updateEndpoint(tx, id, changes));
    },

    async deleteEndpoint(tx: Tx, actor: Actor, id: string) {
      if (!isUuid(id) || !(await deleteEndpoint(tx, actor.id, id))) throw errors.notFound('webhook endpoint');
    },

    /** A new secret, answered once; the previous one keeps signing beside it for 24 hours. */
    async rotateSecret(tx: Tx, actor: Actor, id: string) {
      const current = await mustFind(tx, actor, id, true);
      const secret = newSigningSecret();
      const row = await updateEndpoint(tx, id, { secret_sealed: secrets.seal(secret), previous_secret_sealed: current.secret_sealed, previousSecretTtlSeconds: PREVIOUS_SECRET_SECONDS });
      return { ...toEndpoint(row), secret };
    },

    /** A `ping` event for this endpoint alone, due at once. */
    async sendTestEvent(tx: Tx, actor: Actor, id: string) {
      const endpoint = await mustFind(tx, actor, id, true);
      mustBeEnabled(endpoint, 'test');
      const eventId = uuidv7();
      // A ping is its own resource: sequence 1.
      const [event] = await tx.query<{ body: string }>(
        `INSERT INTO events (id, type, body, resource_key, sequence) VALUES ($1::uuid, 'ping',
           json_build_object('id', $1::uuid::text, 'type', 'ping', 'created_at', ${EVENT_TIME_SQL}, 'book_slug', NULL, 'sequence', 1,
                             'data', json_build_object('object', json_build_object('endpoint_id', $2::text))),
           'ping:' || $1::uuid::text, 1)
         RETURNING body::text AS body`,
        [eventId, endpoint.id],
      );
      await tx.query(`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, resource_key, sequence) VALUES ($1, $2, $3, $4, 1)`, [
        uuidv7(),
        eventId,
        endpoint.id,
        `ping:${eventId}`,
      ]);
      return JSON.parse(event.body) as Record<string, unknown>;
    },

    /**
     * Sends a delivery's event again, now: the delivery becomes pending and
     * due, its retry schedule starting again if this attempt fails. One in
     * flight is left to finish (answered as it is); one already pending is
     * made due now. Nothing is sent twice at once, and a repeat of the call
     * adds nothing while the redelivery is pending.
     */
    async retryDelivery(tx: Tx, actor: Actor, id: string, deliveryId: string) {
      const endpoint = await mustFind(tx, actor, id, true);
      if (!isUuid(deliveryId)) throw errors.notFound('webhook delivery');
      const [current] = await tx.query<{ id: string }>(`SELECT id FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2 FOR UPDATE`, [deliveryId, endpoint.id]);
      if (!current) throw errors.notFound('webhook delivery');
      mustBeEnabled(endpoint, 'retry');
      const [row] = await tx.query<DeliveryRow>(
        `UPDATE webhook_deliveries d SET
           retry_base = CASE WHEN d.status = 'pending' THEN d.retry_base ELSE d.attempts END,
           status = 'pending',
           next_attempt_at = CASE WHEN d.status = 'pending' AND d.lease_until > now() THEN d.next_attempt_at ELSE LEAST(d.next_attempt_at, now()) END
         FROM events e WHERE d.id = $1 AND e.id = d.event_id
         RETURNING d.id, d.event_id, e.type AS event_type, d.status, d.attempts, d.next_attempt_at, d.created_at`,
        [deliveryId],
      );
      return toDelivery(row);
    },

    /** The endpoint's delivery attempts, newest first. */
    async listDeliveries(actor: Actor, id: string, query: ListQuery) {
      const endpoint = await mustFind(db, actor, id);
      const { page, watermark } = await paginate<AttemptRow & Record<string, unknown>>(db, cursors, query, {
        list: `webhook_attempts:${endpoint.id}`,
        ordering: { name: 'created', keys: createdDesc('a') },
        sync: updatedAsc('a', 'created_at'),
        where: [`a.endpoint_id = $1`],
        params: [endpoint.id],
        select: (o) => db.query(`SELECT a.* FROM webhook_attempts a WHERE ${o.where.join(' AND ')} ORDER BY ${o.orderBy} LIMIT ${o.limit}`, o.params),
      });
      return { page: { ...page, items: page.items.map(toAttempt) }, watermark };
    },

    eventTypes: EVENT_TYPES,
  };
}
export type WebhookEndpointService = ReturnType<typeof createWebhookEndpointService>;
