import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { PrivateAllowance } from '../../lib/allow-private.js';
export { parseAllowPrivate } from '../../lib/allow-private.js';

/**
 * The SSRF guard of webhook URLs: https only, and every address the name
 * resolves to public (no private, loopback, link-local, metadata, reserved
 * or multicast range), checked when a URL is set and again at each delivery
 * against the address connected to. WEBHOOK_ALLOW_PRIVATE lists the ranges
 * (CIDRs, or `*`) an operator lets through, where plain http is allowed too.
 */

/** Resolves a host name to its addresses (injectable: tests make a name change its answer). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Ranges that are not public beyond what ipaddr.js names (its range() is
 * checked first: every IANA special-purpose IPv4 and IPv6 block it knows).
 * Listed from the IANA special-purpose registries so the whole list holds
 * even where ipaddr.js is silent: 100::/63 (discard
 * and the dummy prefix), 64:ff9b:1::/48 (local-use NAT64), 2001::/23,
 * 2002::/16 (6to4) and the IPv4 blocks, as a second line. All of ::/8
 * (IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96) is refused in
 * isPublicAddress.
 */
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['64:ff9b:1::', 48],
  ['100::', 63],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['2620:4f:8000::', 48],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');
}

/** NAT64's well-known prefix (RFC 6052): the address stands for the IPv4 address in its last 32 bits. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * The address a connection really reaches, as ipaddr.js parses it: an
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d, in any spelling) and a NAT64
 * address (64:ff9b::a.b.c.d) are judged as the IPv4 address they carry.
 */
function effective(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(address)) return null;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
    if (v6.match(NAT64)) {
      const b = v6.toByteArray();
      return new ipaddr.IPv4(b.slice(12));
    }
  }
  return ip;
}

/** Whether `address` is a public unicast address: in no special-purpose range of ipaddr.js nor of the list above. */
function isPublicAddress(address: string): boolean {
  const ip = effective(address);
  if (!ip || ip.range() !== 'unicast') return false;
  // ::/8 (IPv4-compatible, IPv4-translated, the rest reserved by the IETF); not in the BlockList, which matches IPv4 addresses against it as mapped ones.
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).parts[0] <= 0xff) return false;
  const text = ip.toNormalizedString();
  return !NOT_PUBLIC.check(text, ip.kind());
}

/** The address in the form the allowance list checks (a mapped or NAT64 address as its IPv4 address). */
function normalize(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const ip = effective(address);
  if (!ip) return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
  return { address: ip.toNormalizedString(), family: ip.kind() };
}

export class UrlRefused extends Error {
  constructor(
    readonly reason: 'invalid_url' | 'scheme_not_allowed' | 'credentials_not_allowed' | 'unresolvable' | 'private_address',
    message: string,
  ) {
    super(message);
  }
}

export function createUrlGuard(allow: PrivateAllowance, resolver: Resolver = systemResolver) {
  const allowed = (address: string) => {
    const a = normalize(address);
    return allow.all || allow.list.check(a.address, a.family);
  };

  /** Throws UrlRefused unless `address` may be connected to for a URL of this scheme. */
  function checkAddress(address: string, protocol: string) {
    if (allowed(address)) return;
    // The address itself is not told: a caller must not learn what a name resolves to inside the network.
    if (!isPublicAddress(address)) throw new UrlRefused('private_address', "The URL's host resolves to a non-public address.");
    if (protocol !== 'https:') throw new UrlRefused('scheme_not_allowed', 'Webhook URLs must use https.');
  }

  /** Parses and checks a URL's form (no lookup). */
  function parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UrlRefused('invalid_url', 'The URL is not a valid absolute URL.');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UrlRefused('scheme_not_allowed', 'Webhook URLs must use https.');
    if (url.username || url.password) throw new UrlRefused('credentials_not_allowed', 'Webhook URLs cannot carry a user name or password.');
    if (!url.hostname) throw new UrlRefused('invalid_url', 'The URL has no host.');
    return url;
  }

  const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

  /** Every address the URL's host stands for, each checked; throws UrlRefused. */
  async function resolveChecked(url: URL): Promise<{ address: string; family: number }[]> {
    const host = bare(url.hostname);
    let addresses: { address: string; family: number }[];
    if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
    else {
      try {
        addresses = await resolver(host);
      } catch {
        addresses = [];
      }
      if (!addresses.length) throw new UrlRefused('unresolvable', `The host ${host} does not resolve.`);
    }
    for (const a of addresses) checkAddress(a.address, url.protocol);
    return addresses;
  }

  return {
    parse,
    /** When a URL is set: its form, and every address it resolves to now. */
    async checkUrl(raw: string): Promise<URL> {
      const url = parse(raw);
      await resolveChecked(url);
      return url;
    },
    resolveChecked,
    /**
     * A `lookup` for http(s).request: resolves, checks every address, and
     * hands back the first, so the address connected to is one that was
     * checked (a name that turns private between the check and the connect,
     * DNS rebinding, is refused here).
     */
    lookupFor(url: URL) {
      return (hostname: string, options: unknown, callback: (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void) => {
        resolveChecked(new URL(`${url.protocol}//${hostname.includes(':') ? `[${hostname}]` : hostname}`)).then(
          (list) => {
            if ((options as { all?: boolean } | undefined)?.all) callback(null, list);
            else callback(null, list[0].address, list[0].family);
          },
          (err: Error) => callback(err, ''),
        );
      };
    },
  };
}
export type UrlGuard = ReturnType<typeof createUrlGuard>;
