import type { FastifyInstance, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { errors } from '../../errors.js';
import { inboundMessages } from '../../metrics/metrics.js';
import type { RateLimiter } from '../../services/rate-limit/rate-limiter.js';

/**
 * Admission control for an inbound webhook whose signature is known only once
 * the whole body has been read (the inbound mail provider's raw-message
 * forward). The limits are per client (an IPv4 address, an IPv6 /64), yet
 * the provider may share its address with others (shared egress, a
 * balancer), so a client's failures slow it down and never refuse it: a
 * client with a refused signature in the window has its unverified bodies
 * read one at a time, and each refusal holds its turn a while longer. A
 * signed message from that address still gets in.
 */
const FAILED_SIGNATURE_WINDOW_SECONDS = 15 * 60;
/** Refused signatures kept per client in the window (one is enough to throttle it; the cap bounds the rows). */
const FAILED_SIGNATURES_KEPT = 10;
/** How long a refused signature holds its client's turn. */
const REFUSED_SIGNATURE_DELAY_MS = 1000;
/** Unverified bodies one client may be sending at once (this process); one when throttled. */
const UNVERIFIED_BODIES_PER_CLIENT = 4;
/** Requests of one client waiting for their turn; past it, 503 (providers retry). */
const WAITING_PER_CLIENT = 32;
/** Unverified bodies being read, all clients together (this process); past it, 503. */
export const UNVERIFIED_BODIES_IN_ALL = 8;
const BUSY_RETRY_AFTER_SECONDS = 5;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The address a request came from, IPv4-mapped IPv6 as IPv4; null when it is not an address. */
function parseClientIp(ip: string): Address | null {
  try {
    return ipaddr.process(ip);
  } catch {
    return null;
  }
}

/** What the per-client limits count by: the IPv4 address, or the IPv6 /64 (one site's addresses). */
export function clientKey(addr: Address | null, raw: string): string {
  if (!addr) return raw;
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

const busy = (what: string) =>
  errors.serviceUnavailable(`The service is busy (${what}); retry after the time in the Retry-After header.`, null, {
    headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
  });

/** Turns per client: `limit` at once, the rest wait in order (their bodies unread). */
class ClientTurns {
  private readonly clients = new Map<string, { active: number; waiting: { limit: number; go: () => void }[] }>();

  async take(key: string, limit: number): Promise<void> {
    let c = this.clients.get(key);
    if (!c) this.clients.set(key, (c = { active: 0, waiting: [] }));
    if (c.active < limit && !c.waiting.length) {
      c.active++;
      return;
    }
    if (c.waiting.length >= WAITING_PER_CLIENT) throw busy('too many requests from this address are waiting');
    await new Promise<void>((go) => c.waiting.push({ limit, go }));
  }

  give(key: string): void {
    const c = this.clients.get(key);
    if (!c) return;
    c.active--;
    while (c.waiting.length && c.active < c.waiting[0].limit) {
      c.active++;
      c.waiting.shift()!.go();
    }
    if (!c.active && !c.waiting.length) this.clients.delete(key);
  }
}

/** What the route does with an admitted request's body. */
export interface InboundAdmission {
  /**
   * Reads the unverified body through `read` (which answers null when the
   * signature does not match) once the client's turn comes: 503 with
   * Retry-After when too many of its requests wait or this process already
   * reads UNVERIFIED_BODIES_IN_ALL, 408 when the client left while it
   * waited, 403 after a short delay for a refused signature (the client's
   * failure counted). The turn ends with the read.
   */
  readUnverified<T>(body: { destroyed: boolean }, read: () => Promise<T | null>): Promise<T>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the routes of a scope with inbound admission, once the request is admitted. */
    inboundAdmission: InboundAdmission | null;
  }
}

export interface InboundAdmissionOptions {
  /** The only address ranges taken from (the provider's own: no per-client limits there); null for any address, each limited. */
  allowedCidrs: [Address, number][] | null;
  /** The largest body taken: a declared Content-Length over it is 413 before a byte is read. */
  maxBytes: number;
  /** Where refused signatures are counted per client. */
  limiter: RateLimiter;
  /** The bucket prefix refused signatures are counted under (`<prefix>:ip:<client>`). */
  bucket: string;
  /** The provider label its refusals are counted under in the inbound messages metric (refused_address, refused_too_large, refused_busy, refused_signature). */
  provider: string;
}

/**
 * Adds inbound admission to every route of `scope`. Before the handler runs
 * (and before any of the body is read), an address outside the allowed
 * ranges (when set) is 403 and a declared length over the ceiling 413. The
 * handler reads the body through `request.inboundAdmission.readUnverified`,
 * where the client first waits its turn (a few bodies at once, one while it
 * has refused signatures in the window), its body still unread.
 */
export function registerInboundAdmission(scope: FastifyInstance, o: InboundAdmissionOptions): void {
  const turns = new ClientTurns();
  let unverifiedInAll = 0;
  const refused = (outcome: string) => inboundMessages.inc({ provider: o.provider, outcome });

  /** Before any of the body is read: the address and the declared length; the key its client is limited by (null: an allowed range's, not limited). */
  function admit(request: FastifyRequest): string | null {
    const addr = parseClientIp(request.ip);
    const allowed = o.allowedCidrs;
    if (allowed && !(addr && allowed.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits)))) {
      refused('refused_address');
      throw errors.forbidden('The request is refused: its address is not in INBOUND_EMAIL_ALLOWED_CIDRS.');
    }
    const length = Number(request.headers['content-length']);
    if (Number.isSafeInteger(length) && length > o.maxBytes) {
      refused('refused_too_large');
      throw errors.payloadTooLarge(`The message is larger than ${o.maxBytes} bytes.`, { max_bytes: o.maxBytes });
    }
    return allowed ? null : clientKey(addr, request.ip);
  }

  /** A refused signature: counted against the client, whose turn it holds a while longer. */
  async function refuseSignature(key: string | null): Promise<never> {
    refused('refused_signature');
    if (key) {
      await o.limiter.hit(`${o.bucket}:ip:${key}`, FAILED_SIGNATURES_KEPT, FAILED_SIGNATURE_WINDOW_SECONDS);
      await new Promise((r) => setTimeout(r, REFUSED_SIGNATURE_DELAY_MS));
    }
    throw errors.forbidden('The request is refused: the X-Memorybook-Signature does not match.');
  }

  scope.decorateRequest('inboundAdmission', null);
  scope.addHook('preHandler', async (request) => {
    const key = admit(request);
    request.inboundAdmission = {
      async readUnverified(body, read) {
        // The client waits its turn in the handler, so the turn is given back however the wait ends.
        if (key) {
          const throttled = !(await o.limiter.peek(`${o.bucket}:ip:${key}`, 1, FAILED_SIGNATURE_WINDOW_SECONDS)).allowed;
          await turns.take(key, throttled ? 1 : UNVERIFIED_BODIES_PER_CLIENT);
        }
        try {
          if (unverifiedInAll >= UNVERIFIED_BODIES_IN_ALL) {
            refused('refused_busy');
            throw busy('too many unverified messages are being received');
          }
          // A client gone while it waited has no body left to read.
          if (body.destroyed) throw errors.requestTimeout('The message was cut off before its end; send it again.');
          unverifiedInAll++;
          let result: Awaited<ReturnType<typeof read>>;
          try {
            result = await read();
          } finally {
            unverifiedInAll--;
          }
          return result ?? (await refuseSignature(key));
        } finally {
          if (key) turns.give(key);
        }
      },
    };
  });
}
