import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { HeaderField } from './raw-message.js';
import { headerValue } from './raw-message.js';

/** A DNS lookup as mailauth calls it (`dns.promises.resolve`'s shape); tests hand in their own records. */
export type DnsResolver = (domain: string, rrtype: string) => Promise<string[][] | string[]>;

/** What a message's sending domain proved. Verdicts as RFC 8601 writes them: pass, fail, softfail, neutral, none, temperror, permerror, policy. */
export interface MailVerdict {
  spf: string;
  dkim: string;
  dmarc: string;
  /** The domain of the From address, lower-case (null when From has none). */
  fromDomain: string | null;
  /**
   * The one From address the verdict is about, lower-case, parsed as the
   * message's reader (mailparser) parses it; null when the From field holds
   * none or several (then nothing is proved). Only this address is ever
   * linked to an account.
   */
  fromAddress?: string | null;
  /**
   * Whether the From address's domain is proved (DMARC pass, or an SPF or
   * DKIM pass for a domain aligned with it, relaxed: the same organisational
   * domain): only then may the sender be taken for the holder of that address.
   */
  fromAuthenticated: boolean;
}

// The Public Suffix List (tldts) and the address parser are read with the first message, not as every process
// starts: a synchronous require, so the checks below stay plain functions.
const require = createRequire(import.meta.url);
let getDomain: typeof import('tldts').getDomain | undefined;
let addressparser: (typeof import('nodemailer/lib/addressparser/index.js'))['default'] | undefined;

// As mailauth reads it for DMARC: the private part of the list too, so two sites under one hosting suffix (a.github.io, b.github.io) are two organisations.
const PSL = { allowIcannDomains: true, allowPrivateDomains: true };

/**
 * The organisational domain (RFC 7489 §3.2) of a name, from the Public
 * Suffix List: `mail.example.co.uk` → `example.co.uk`. Null for a public
 * suffix itself (`co.uk`) or for what is not a domain name.
 */
export function organisationalDomain(name: string): string | null {
  getDomain ??= (require('tldts') as typeof import('tldts')).getDomain;
  return getDomain(name.toLowerCase().replace(/\.$/, ''), PSL);
}

/**
 * Relaxed identifier alignment as DMARC defines it: the two names share their
 * organisational domain (`mail.example.co.uk` aligns with `example.co.uk`
 * and `news.example.co.uk`, never with `example.co.uk.evil.test` or a
 * public suffix such as `co.uk`).
 */
export function aligned(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = organisationalDomain(a);
  return x !== null && x === organisationalDomain(b);
}

/**
 * The From field's one address, parsed (nodemailer's addressparser, as
 * mailparser reads it): null for none, several, or more than one From field.
 */
export function singleFromAddress(fields: string[]): string | null {
  if (fields.length !== 1) return null;
  addressparser ??= require('nodemailer/lib/addressparser/index.js') as (typeof import('nodemailer/lib/addressparser/index.js'))['default'];
  const parsed = flatten(addressparser(fields[0].slice(0, 4096)));
  if (parsed.length !== 1) return null;
  const address = parsed[0].address?.trim().toLowerCase() ?? '';
  const at = address.lastIndexOf('@');
  return at > 0 && at < address.length - 1 && address.indexOf('@') === at && !/[\s<>()]/.test(address) ? address : null;
}

type Parsed = { address?: string; group?: Parsed[] };
const flatten = (list: Parsed[]): Parsed[] => list.flatMap((a) => (a.group ? flatten(a.group) : [a]));

const domainOf = (address: string | null | undefined) => (address && address.includes('@') ? address.slice(address.lastIndexOf('@') + 1).replace(/>.*$/, '').toLowerCase() : null);

// mailauth (and its DNS client) is loaded by the receiver as it starts (loadMailAuth), not by every process.
let mailauth: Promise<typeof import('mailauth')> | undefined;

/** Loads mailauth now: some 35 MB of modules a receiving process would otherwise take on with its first message. */
export async function loadMailAuth(): Promise<void> {
  await (mailauth ??= import('mailauth'));
}

/**
 * Verifies SPF (the connecting IP for the MAIL FROM domain), DKIM (every
 * signature, the body hashed as it streams) and DMARC (the From domain's
 * policy against the aligned passes), as a receiving MTA does.
 */
export async function verifyMessage(
  message: Readable,
  envelope: { ip: string; helo: string; sender: string; mta: string },
  resolver?: DnsResolver,
): Promise<MailVerdict> {
  const { authenticate } = await (mailauth ??= import('mailauth'));
  const r = await authenticate(message, {
    ip: envelope.ip,
    helo: envelope.helo,
    sender: envelope.sender,
    mta: envelope.mta,
    resolver,
    disableArc: true,
    disableBimi: true,
  });
  const dkimResults = r.dkim?.results ?? [];
  const dkimPass = dkimResults.filter((d) => d.status?.result === 'pass');
  const dkim = dkimPass.length ? 'pass' : (dkimResults[0]?.status?.result ?? 'none');
  const spf = (r.spf && r.spf.status?.result) || 'none';
  const dmarc = (r.dmarc && r.dmarc.status?.result) || 'none';
  const headerFrom = r.dkim?.headerFrom ?? [];
  const fromAddress = headerFrom.length === 1 ? (headerFrom[0]?.toLowerCase() ?? null) : null;
  const fromDomain = domainOf(fromAddress ?? headerFrom[0]);
  const fromAuthenticated =
    fromAddress !== null &&
    (dmarc === 'pass' ||
    dkimPass.some((d) => aligned(d.signingDomain, fromDomain)) ||
    (spf === 'pass' && aligned(r.spf ? (r.spf as { domain?: string }).domain : null, fromDomain)));
  return { spf, dkim, dmarc, fromDomain, fromAddress, fromAuthenticated };
}

/**
 * The field with its comments and quoted strings emptied: a sender's own
 * words can appear there (a quoted MAIL FROM local part echoed in a comment),
 * so `(… dmarc=pass …)` must never read as a result.
 */
function withoutCommentsOrQuotes(value: string): string {
  let v = value.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (let before = ''; before !== v; ) {
    before = v;
    v = v.replace(/\([^()]*\)/g, ' ');
  }
  return v;
}

/**
 * The verdicts an inbound provider wrote into the Authentication-Results
 * field (RFC 8601) it added on receipt: the topmost field of the message, and
 * only when it names the provider's authserv-id (INBOUND_EMAIL_AUTHSERV_ID;
 * `mx.provider.example; spf=pass smtp.mailfrom=…; dkim=pass header.d=…;
 * dmarc=fail header.from=…`). The receiving MTA prepends its field (§5), so
 * any field below it may be the sender's own writing, whatever id it names:
 * without the provider's field on top, every verdict is `none`. A DMARC pass
 * proves the From domain only for the domain it names (`header.from`); a
 * message with more than one From field, or a From of several addresses,
 * proves no sender at all.
 */
export function verdictFromHeaders(headers: HeaderField[], authservId: string): MailVerdict {
  const id = authservId.toLowerCase();
  const top = headers.find((h) => h.key === 'authentication-results');
  const mine = top && top.value.split(';')[0].trim().split(/\s+/)[0]?.toLowerCase() === id ? top : undefined;
  const ar = withoutCommentsOrQuotes(mine?.value ?? '');
  // Each result is its own `;`-separated resinfo that starts with its method (the first part is the authserv-id).
  const resinfos = ar.split(';').slice(1).map((r) => r.trim());
  const method = (name: string) => {
    const m = resinfos.map((r) => new RegExp(`^${name}\\s*=\\s*([a-z]+)(.*)$`, 'is').exec(r)).find(Boolean);
    return { result: m ? m[1].toLowerCase() : 'none', props: m ? m[2] : '' };
  };
  const prop = (props: string, name: string) => new RegExp(`${name.replace('.', '\\.')}\\s*=\\s*"?([^\\s;"]+)`, 'i').exec(props)?.[1] ?? null;
  const spf = method('spf');
  const dkim = method('dkim');
  const dmarc = method('dmarc');
  // The one address the message's reader will see, parsed as it parses it (a comment such as
  // `member@victim.test (@evil.test>)` is no second domain); which of several would be "the sender" is a guess: none is proved.
  const fromAddress = singleFromAddress(headers.filter((h) => h.key === 'from').map((h) => h.value));
  const fromDomain = fromAddress ? domainOf(fromAddress) : domainOf(headerValue(headers, 'from') ?? null);
  const oneSender = fromAddress !== null;
  const dmarcFrom = prop(dmarc.props, 'header.from')?.toLowerCase().replace(/\.$/, '') ?? null;
  const fromAuthenticated =
    oneSender &&
    ((dmarc.result === 'pass' && dmarcFrom !== null && dmarcFrom === fromDomain) ||
      (dkim.result === 'pass' && aligned(prop(dkim.props, 'header.d') ?? prop(dkim.props, 'header.i')?.replace(/^.*@/, ''), fromDomain)) ||
      (spf.result === 'pass' && aligned(domainOf(prop(spf.props, 'smtp.mailfrom')) ?? prop(spf.props, 'smtp.mailfrom'), fromDomain)));
  return { spf: spf.result, dkim: dkim.result, dmarc: dmarc.result, fromDomain, fromAddress, fromAuthenticated };
}
