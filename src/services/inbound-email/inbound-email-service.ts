import { once } from 'node:events';
import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config/config.js';
import type { Db, Queryable } from '../../db/client.js';
import { AppError, errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { uuidv7 } from '../../lib/ids.js';
import type { SmtpEnvelope, SmtpReply } from '../../mail/inbound-receiver.js';
import { loadMailAuth, verdictFromHeaders, verifyMessage, type DnsResolver, type MailVerdict } from '../../mail/mail-authentication.js';
import type { MailMessage } from '../../mail/mailer.js';
import { addressesIn, collectedAsItGoes, HmacMeter, MessageMeter, MessageTooLargeError, messageIdOf, type RawMessageInfo } from '../../mail/raw-message.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { inboundMessages } from '../../metrics/metrics.js';
import type { BookContext } from '../books/book-types.js';
import { findOpenChannelBook } from '../channels/channel-service.js';
import { countMembersOfBook, lockPendingInvitation, selectPendingInvitations } from '../inbound/inbound-repository.js';
import { recordInvitationEvent } from '../events/event-objects.js';
import { markInvitationAccepted } from '../invitations/invitation-repository.js';
import { forgetPendingObject, recordPendingObject, takePendingObject } from '../media/media-repository.js';
import type { MediaService, StagedUpload } from '../media/media-service.js';
import { joinBook } from '../members/member-service.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { SubmissionService } from '../submissions/submission-service.js';
import { findInboundEmail, findSenderAccount, finishInboundEmail, insertInboundEmail, lockSpoolRows } from './inbound-email-repository.js';
import { extractOwnWords, type Trimmed } from './own-words.js';
import { textOfHtml } from './html-text.js';
import { cleanName } from '../inbound/inbound-service.js';

/** Parts that sign or describe a message rather than being a file the sender attached. */
/** Files one message may bring into a memory; the rest are named in the reply as not added. */
export const MAX_FILES_PER_MESSAGE = 20;
/** How much of a message's text part is read for its own words (a memory holds 20,000 characters; quoted history is cut anyway). */
const MAX_TEXT_CHARS = 512 * 1024;
/** Own words of the text part shorter than this are compared with the HTML part's. */
const RICHER_HTML_BELOW = 200;

/**
 * The own words of a message's text or HTML part: the text part's, unless
 * it has none (HTML-only mail, or a text part that is only a quote or a
 * "view this in HTML" line) and the HTML part has some.
 */
export function ownWordsOfParts(text: string, html: string, subject: string): { text: string; trimmed: Trimmed } {
  const fromText = extractOwnWords(text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text, { subject });
  // A long text part is the message; a short one may be a stub beside the real (HTML) message.
  if (!html || fromText.text.length >= RICHER_HTML_BELOW) return fromText;
  const fromHtml = extractOwnWords(textOfHtml(html), { subject });
  // The HTML part is read when the text part has no words (however few the HTML's: "Reply"), or when it says far
  // more ("View this message in a browser").
  return fromText.text === '' || fromHtml.text.length > 2 * fromText.text.length + 40 ? fromHtml : fromText;
}

const NOT_FILES = new Set(['application/pkcs7-signature', 'application/x-pkcs7-signature', 'application/pgp-signature', 'application/pgp-keys', 'message/delivery-status']);

/**
 * Webhook limits per client (an IPv4 address, an IPv6 /64). A wrong signature
 * is only known once the whole body has been read, yet the provider may share
 * its address with others (shared egress, a balancer), so a client's failures
 * slow it down and never refuse it: a client with a refused signature in the
 * window has its unverified bodies read one at a time, and each refusal holds
 * its turn a while longer. A signed message from that address still gets in.
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
/** Unverified bodies being read into temporary files, all clients together (this process); past it, 503. */
const UNVERIFIED_BODIES_IN_ALL = 8;
const BUSY_RETRY_AFTER_SECONDS = 5;

/** The address a request came from, IPv4-mapped IPv6 as IPv4; null when it is not an address. */
function parseClientIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.process(ip);
  } catch {
    return null;
  }
}

/** What the per-client limits count by: the IPv4 address, or the IPv6 /64 (one site's addresses). */
function clientKey(addr: ipaddr.IPv4 | ipaddr.IPv6 | null, raw: string): string {
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

/** The From address a verdict proved (its own parsed address, lower-case), or null: rows recorded before it was kept prove none. */
function authenticatedSender(auth: MailVerdict): string | null {
  return auth.fromAuthenticated && auth.fromAddress ? auth.fromAddress.toLowerCase() : null;
}

/** A book address's slug, lower-case. */
interface BookRecipient {
  slug: string;
}

/** What a webhook delivery came to. */
export type WebhookOutcome = 'accepted' | 'duplicate' | 'dropped';

interface Refused {
  filename: string;
  reason: string;
}

/**
 * Memories by email. A message arrives through the SMTP receiver
 * (receiveSmtp, after checkRecipient at RCPT TO) or the signed webhook
 * (receiveWebhook; its body only once its signature is checked) and is
 * spooled to the object store as it streams, then
 * recorded per book in one transaction with its email.process job, and only
 * then answered (250 / 202): a message accepted is never lost (the job
 * retries), and a message received again (same Message-ID, or body hash)
 * finds its row and changes nothing, so a sender's retry after a lost reply
 * stores nothing twice. DMARC-failing mail is recorded as dropped, never
 * processed. The job parses the spool as a stream (MailParser): each
 * attachment streams into the media intake, the text is the sender's own
 * words, and the memory, its media and the reply about refused files are
 * written in one transaction.
 */
export function createInboundEmailService(deps: {
  db: Db;
  config: Config;
  store: ObjectStore;
  media: Pick<MediaService, 'stageChannelFile' | 'discardStaged' | 'attachStaged'>;
  submissions: Pick<SubmissionService, 'receiveEmail'>;
  rateLimiter: RateLimiter;
  queue?: JobSender;
  enqueueMail?: (message: MailMessage, tx: Queryable) => Promise<void>;
}) {
  const { db, config, store, media } = deps;
  const domain = config.messaging.inboundMailDomain;
  const maxBytes = config.mailInbound.maxBytes;

  function needQueue(): JobSender {
    if (!deps.queue) throw new Error('inbound mail needs the job queue');
    return deps.queue;
  }

  /** The book a recipient address names (`<slug>@MAIL_INBOUND_DOMAIN`), or null for any other address. */
  function recipientOf(address: string): BookRecipient | null {
    const at = address.lastIndexOf('@');
    if (at <= 0 || address.slice(at + 1).toLowerCase() !== domain) return null;
    return { slug: address.slice(0, at).toLowerCase() };
  }

  /** The book this address reaches now, one that takes mail; otherwise undefined (a closed and an unknown book look the same). */
  async function openBookFor(q: Queryable, r: BookRecipient): Promise<BookContext | undefined> {
    return findOpenChannelBook(q, r.slug, 'email');
  }

  const count = (outcome: string) => inboundMessages.inc({ provider: 'email', outcome });

  /** Turns for reading unverified webhook bodies, per client; and how many are being read in all. */
  const turns = new ClientTurns();
  let unverifiedInAll = 0;

  /**
   * Streams the raw message into the store under a new key, metered (size
   * ceiling, header block, body hash). The key is recorded as pending first,
   * so a process that dies mid-message leaves nothing the sweep does not remove.
   */
  async function spool(source: Readable, hmac?: HmacMeter): Promise<{ key: string; info: RawMessageInfo }> {
    const key = `inbound-mail/${uuidv7()}.eml`;
    const meter = new MessageMeter(maxBytes);
    await recordPendingObject(db, key);
    // A sender gone mid-message (the connection closed, the request aborted) ends the spool with an error, never a hang.
    const cutOff = (err?: Error) => meter.destroy(err ?? new Error('The message was cut off before its end'));
    source.once('error', cutOff);
    source.once('close', () => {
      if (!source.readableEnded) cutOff();
    });
    try {
      (hmac ? source.pipe(hmac) : source).pipe(meter);
      await store.put(key, meter, { contentType: 'message/rfc822' });
      return { key, info: meter.info() };
    } catch (err) {
      source.unpipe();
      await forgetPendingObject(db, key).catch(() => {});
      throw meter.errored ?? err;
    }
  }

  /**
   * A temporary file whose name is gone as soon as it is open: one stream
   * writes it, one reads it back from the start, each with its own
   * descriptor, and the file lasts as long as they do (or their process).
   */
  async function unlinkedTempFile(): Promise<{ writer: WriteStream; reader: ReadStream; discard(): void }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-mail-'));
    const file = path.join(dir, 'message.eml');
    const streams: { writer?: WriteStream; reader?: ReadStream } = {};
    const discard = () => {
      streams.writer?.destroy();
      streams.reader?.destroy();
    };
    try {
      streams.writer = createWriteStream(file, { flags: 'wx', mode: 0o600 });
      await once(streams.writer, 'open');
      streams.reader = createReadStream(file);
      await once(streams.reader, 'open');
      return { writer: streams.writer, reader: streams.reader, discard };
    } catch (err) {
      discard();
      throw err;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Reads a webhook body into `sink` through `hmac`, metered (an error past
   * the ceiling). The body itself is never destroyed here: the route still
   * answers on its connection.
   */
  async function readInto(source: Readable, hmac: HmacMeter, sink: Writable) {
    const meter = new MessageMeter(maxBytes);
    const cutOff = (err?: Error) => hmac.destroy(err ?? new Error('The message was cut off before its end'));
    source.once('error', cutOff);
    source.once('close', () => {
      if (!source.readableEnded) cutOff();
    });
    source.pipe(hmac);
    try {
      await pipeline(hmac, meter, sink);
    } catch (err) {
      source.unpipe(hmac);
      throw meter.errored ?? err;
    }
  }

  async function discardSpool(key: string) {
    await store.delete(key);
    await forgetPendingObject(db, key);
  }

  /**
   * Records the message for each book it names that takes mail now, with its
   * job (or as dropped, for a DMARC fail), in one transaction; the spool is
   * kept when a job needs it, else removed.
   */
  async function accept(via: 'smtp' | 'webhook', key: string, info: RawMessageInfo, verdict: MailVerdict, recipients: BookRecipient[]) {
    const messageId = messageIdOf(info.headers);
    const dedupeKey = messageId ? `message-id:${messageId}` : `body-sha256:${info.bodySha256}`;
    const dmarcFail = verdict.dmarc === 'fail';
    const counts = { accepted: 0, duplicates: 0, dropped: 0, closed: 0 };
    try {
      await db.transaction(async (tx) => {
        Object.assign(counts, { accepted: 0, duplicates: 0, dropped: 0, closed: 0 }); // a retried transaction counts afresh
        const books = new Set<string>();
        for (const r of recipients) {
          const ctx = await openBookFor(tx, r);
          if (!ctx) {
            counts.closed++;
            continue;
          }
          if (books.has(ctx.book.id)) continue; // the same book under two of its addresses
          books.add(ctx.book.id);
          const id = uuidv7();
          const inserted = await insertInboundEmail(tx, {
            id,
            bookId: ctx.book.id,
            dedupeKey,
            via,
            spoolKey: dmarcFail ? null : key,
            sizeBytes: info.sizeBytes,
            auth: verdict,
            outcome: dmarcFail ? 'dropped:dmarc_fail' : 'queued',
            processed: dmarcFail,
          });
          if (!inserted) counts.duplicates++;
          else if (dmarcFail) counts.dropped++;
          else {
            counts.accepted++;
            await needQueue().send('email.process', { inboundEmailId: id }, { tx });
          }
        }
        if (counts.accepted && !(await takePendingObject(tx, key))) {
          throw errors.requestTimeout('The message took too long to arrive and was discarded; send it again.', null, { transient: true });
        }
      });
    } catch (err) {
      await discardSpool(key).catch(() => {});
      throw err;
    }
    if (!counts.accepted) await discardSpool(key);
    count(counts.accepted ? 'accepted' : counts.dropped ? 'dropped_dmarc_fail' : counts.duplicates ? 'duplicate' : 'refused_no_book');
    return counts;
  }

  /** Drains what is left of an attachment's content (the intake may stop reading early) so the parser goes on. */
  async function drain(content: Readable, ended: () => boolean) {
    if (ended() || content.destroyed) return;
    content.resume();
    await finished(content).catch(() => {});
  }

  /** Records a message the parser refused, frees its spool, and tells a sender whose domain vouched for it (no backscatter). */
  async function refuseUnparseable(id: string, spoolKey: string, auth: MailVerdict, headers: Map<string, unknown> | null, reason: string) {
    const fromValue = (headers?.get('from') as { value?: { address?: string }[] } | undefined)?.value;
    const to = fromValue?.length === 1 ? (fromValue[0].address?.toLowerCase() ?? null) : (auth.fromAddress ?? null);
    const subject = typeof headers?.get('subject') === 'string' ? (headers.get('subject') as string) : '';
    const messageId = headers?.get('message-id');
    await db.transaction(async (tx) => {
      const spoolRows = await lockSpoolRows(tx, spoolKey);
      const mine = spoolRows.find((r) => r.id === id);
      if (!mine || mine.processed_at) return;
      if (spoolRows.every((r) => r.id === id || r.processed_at)) await needQueue().send('storage.delete-objects', { keys: [spoolKey] }, { tx });
      await finishInboundEmail(tx, id, 'refused:unparseable', null);
      if (to && (auth.spf === 'pass' || auth.dkim === 'pass') && deps.enqueueMail) {
        await deps.enqueueMail(
          {
            to,
            subject: `Re: ${subject || 'your memory'}`.slice(0, 200),
            text: ['Your message could not be read, so it did not become a memory.', '', `Why: ${reason}`, '', 'Please send it again as an ordinary email, with your words and photos.'].join('\n'),
            headers: typeof messageId === 'string' ? { 'In-Reply-To': messageId, References: messageId } : undefined,
          },
          tx,
        );
      }
    });
  }

  const reasonOf = (err: unknown) => (err instanceof AppError ? err.message : 'It could not be read.');

  /** The reply naming every file that was not added, and why. */
  function refusalMail(to: string, subject: string, bookTitle: string, refused: Refused[], inReplyTo: string | null, submitted: boolean): MailMessage {
    const lines = refused.map((r) => `- ${r.filename}: ${r.reason}`);
    const text = [
      submitted ? `Thank you: your memory reached "${bookTitle}".` : `Thank you for writing to "${bookTitle}".`,
      '',
      refused.length === 1 ? 'This file could not be added:' : 'These files could not be added:',
      ...lines,
      '',
      'Photos (JPEG, PNG, HEIC, WebP…), voice recordings and videos can be added, within the size the book allows.',
    ].join('\n');
    return {
      to,
      subject: `Re: ${subject || 'your memory'}`.slice(0, 200),
      text,
      headers: inReplyTo ? { 'In-Reply-To': `<${inReplyTo}>`, References: `<${inReplyTo}>` } : undefined,
    };
  }

  return {
    /**
     * Loads what receiving and parsing mail needs (mailauth, mailparser) up
     * front: the receiver calls it as it starts, so its first message costs
     * no more memory than any other.
     */
    async prepare(): Promise<void> {
      await Promise.all([loadMailAuth(), import('mailparser')]);
    },

    /** At RCPT TO: a book's address whose book takes mail now, else 550 (an unknown and a closed book look the same). */
    async checkRecipient(address: string): Promise<SmtpReply | null> {
      const r = recipientOf(address);
      if (r && (await openBookFor(db, r))) return null;
      count('refused_no_book');
      return { code: 550, message: '5.1.1 No such mailbox here' };
    },

    /** At the end of DATA: spool, verify SPF/DKIM/DMARC, record; the reply to give the client. */
    async receiveSmtp(message: Readable, envelope: SmtpEnvelope, o: { resolver?: DnsResolver } = {}): Promise<SmtpReply> {
      let spooled: { key: string; info: RawMessageInfo };
      try {
        spooled = await spool(message);
      } catch (err) {
        if (err instanceof MessageTooLargeError) {
          count('refused_too_large');
          return { code: 552, message: `5.3.4 Message exceeds the maximum size of ${maxBytes} bytes` };
        }
        throw err;
      }
      let verdict: MailVerdict;
      try {
        verdict = await verifyMessage(collectedAsItGoes(await store.get(spooled.key)), { ip: envelope.ip, helo: envelope.helo, sender: envelope.sender, mta: domain }, o.resolver);
      } catch (err) {
        await discardSpool(spooled.key).catch(() => {});
        throw err;
      }
      const recipients = envelope.recipients.map(recipientOf).filter((r): r is BookRecipient => r !== null);
      const r = await accept('smtp', spooled.key, spooled.info, verdict, recipients);
      if (r.dropped) return { code: 550, message: '5.7.1 Message refused: it failed the sender domain\'s DMARC check' };
      if (!r.accepted && !r.duplicates) return { code: 550, message: '5.1.1 No such mailbox here' };
      return { code: 250, message: r.accepted ? '2.0.0 Message accepted' : '2.0.0 Message already received' };
    },

    /**
     * A raw message posted by an inbound mail provider, signed with
     * HMAC-SHA256 under INBOUND_EMAIL_SECRET. Before any of the body is read:
     * an address outside INBOUND_EMAIL_ALLOWED_CIDRS (when set) is refused
     * (403), a declared length over the ceiling too (413); a client waits its
     * turn (a few bodies at once, one while it has refused signatures in the
     * window), and when this process already reads UNVERIFIED_BODIES_IN_ALL
     * unverified bodies the answer is 503 with Retry-After. The body then
     * streams, metered and hashed, into an unlinked temporary file on this
     * machine (nothing a crash can leave, no database row, nothing in the
     * store); a signature that does not match ends it there (403 after a
     * short delay, the client's failure counted). Only a signed message is
     * spooled and recorded. The recipients are the book addresses in its own
     * (signed) Delivered-To, X-Original-To, To and Cc; the verdicts are the
     * provider's Authentication-Results under INBOUND_EMAIL_AUTHSERV_ID.
     */
    async receiveWebhook(body: Readable, signature: string, client: { ip: string; declaredBytes: number | null }): Promise<WebhookOutcome> {
      const secret = config.mailInbound.webhookSecret;
      const authservId = config.mailInbound.webhookAuthservId;
      if (!secret || !authservId) throw errors.forbidden('The request is refused: INBOUND_EMAIL_SECRET is not set.');
      const addr = parseClientIp(client.ip);
      const allowed = config.mailInbound.webhookAllowedCidrs;
      if (allowed && !(addr && allowed.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits)))) {
        count('refused_address');
        throw errors.forbidden('The request is refused: its address is not in INBOUND_EMAIL_ALLOWED_CIDRS.');
      }
      const tooLarge = () => {
        count('refused_too_large');
        return errors.payloadTooLarge(`The message is larger than ${maxBytes} bytes.`, { max_bytes: maxBytes });
      };
      if (client.declaredBytes !== null && client.declaredBytes > maxBytes) throw tooLarge();

      // An allowed range is the provider's own: no per-client limits there.
      const key = allowed ? null : clientKey(addr, client.ip);
      const failures = `email_webhook_signature:ip:${key}`;
      if (key) {
        const throttled = !(await deps.rateLimiter.peek(failures, 1, FAILED_SIGNATURE_WINDOW_SECONDS)).allowed;
        await turns.take(key, throttled ? 1 : UNVERIFIED_BODIES_PER_CLIENT);
      }
      let temp: Awaited<ReturnType<typeof unlinkedTempFile>> | undefined;
      try {
        if (unverifiedInAll >= UNVERIFIED_BODIES_IN_ALL) {
          count('refused_busy');
          throw busy('too many unverified messages are being received');
        }
        // A client gone while it waited has no body left to read.
        if (body.destroyed) {
          throw errors.requestTimeout('The message was cut off before its end; send it again.');
        }
        unverifiedInAll++;
        const hmac = new HmacMeter(secret);
        try {
          temp = await unlinkedTempFile();
          await readInto(body, hmac, temp.writer);
        } catch (err) {
          if (err instanceof MessageTooLargeError) throw tooLarge();
          throw err;
        } finally {
          unverifiedInAll--;
        }
        if (!hmac.matches(signature)) {
          count('refused_signature');
          if (key) {
            await deps.rateLimiter.hit(failures, FAILED_SIGNATURES_KEPT, FAILED_SIGNATURE_WINDOW_SECONDS);
            await new Promise((r) => setTimeout(r, REFUSED_SIGNATURE_DELAY_MS));
          }
          throw errors.forbidden('The request is refused: the X-Memorybook-Signature does not match.');
        }
      } catch (err) {
        temp?.discard();
        throw err;
      } finally {
        if (key) turns.give(key);
      }
      try {
        const spooled = await spool(temp!.reader);
        const recipients = addressesIn(spooled.info.headers, ['delivered-to', 'x-original-to', 'to', 'cc']).map(recipientOf).filter((r): r is BookRecipient => r !== null);
        const r = await accept('webhook', spooled.key, spooled.info, verdictFromHeaders(spooled.info.headers, authservId), recipients);
        if (!r.accepted && !r.duplicates && !r.dropped) throw errors.notFound('book');
        return r.accepted ? 'accepted' : r.dropped ? 'dropped' : 'duplicate';
      } finally {
        temp?.discard();
      }
    },

    /**
     * The email.process job: the spooled message becomes a pending memory of
     * its book. Safe to run again: a processed row returns at once, and files
     * staged by a run that dies are removed by the pending-object sweep.
     */
    async process(id: string, o: { log?: FastifyBaseLogger } = {}): Promise<string> {
      const row = await findInboundEmail(db, id);
      if (!row || row.processed_at || !row.spool_key) return row?.outcome ?? 'gone';
      const spoolKey = row.spool_key;
      const { MailParser } = await import('mailparser');
      const parser = new MailParser({ skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true, skipHtmlToText: true });
      const source = collectedAsItGoes(await store.get(spoolKey));
      let sourceFailed = false;
      source.on('error', (err) => {
        sourceFailed = true;
        parser.destroy(err);
      });
      let parserError: unknown = null;
      parser.once('error', (err) => (parserError = err));
      source.pipe(parser);

      const staged: StagedUpload[] = [];
      const refused: Refused[] = [];
      let headers: Map<string, unknown> | null = null;
      parser.once('headers', (h: Map<string, unknown>) => (headers = h));
      let text = '';
      let html = '';
      let files = 0;
      let stop: string | null = null;
      let checkedRate = false;

      const from = () => {
        const value = (headers?.get('from') as { value?: { address?: string; name?: string }[] } | undefined)?.value?.[0];
        return { address: value?.address?.toLowerCase().slice(0, 254) || null, name: cleanName(value?.name).replace(/\s+/g, ' ') || null };
      };
      const limits = config.limits;

      try {
        for await (const part of parser as AsyncIterable<{ type: string } & Record<string, unknown>>) {
          if (!checkedRate && headers) {
            checkedRate = true;
            // At most WEB_FORM_RATE_LIMIT memories an hour from one sender to one book, keyed on what was
            // authenticated: the address when its domain is proved, else one budget for all unproved mail to the book.
            const proved = authenticatedSender(row.auth);
            const key = proved ? `email:${row.book_id}:${proved}` : `email:${row.book_id}:unauthenticated`;
            const hit = await deps.rateLimiter.hit(key, limits.webFormRateLimit, limits.webFormRateWindowSeconds);
            if (!hit.allowed) stop = 'refused:rate_limited';
          }
          if (part.type === 'text') {
            text = typeof part.text === 'string' ? part.text : '';
            html = typeof part.html === 'string' ? part.html : '';
            continue;
          }
          if (part.type !== 'attachment') continue;
          const attachment = part as unknown as { content: Readable; contentType: string; filename?: string; release: (() => void) | null };
          let ended = false;
          attachment.content.once('end', () => (ended = true));
          try {
            if (stop || NOT_FILES.has(attachment.contentType)) continue;
            const filename = (attachment.filename ?? `unnamed ${attachment.contentType}`).slice(0, 255);
            if (++files > MAX_FILES_PER_MESSAGE) {
              refused.push({ filename, reason: `A message may bring at most ${MAX_FILES_PER_MESSAGE} files.` });
              continue;
            }
            const pass = new PassThrough();
            attachment.content.pipe(pass);
            try {
              staged.push(await media.stageChannelFile(row.slug, 'email', { stream: pass, filename, declaredType: attachment.contentType }));
            } catch (err) {
              if (err instanceof AppError && err.code === 'not_found') stop = 'refused:book_closed';
              else if (err instanceof AppError && err.status < 500) refused.push({ filename, reason: reasonOf(err) });
              else throw err;
            } finally {
              attachment.content.unpipe(pass);
              pass.destroy();
            }
          } finally {
            await drain(attachment.content, () => ended);
            attachment.release?.();
          }
        }

        const subject = typeof (headers as Map<string, unknown> | null)?.get('subject') === 'string' ? ((headers as unknown as Map<string, string>).get('subject') ?? '') : '';
        const own = ownWordsOfParts(text, html, subject);
        const words = own.text;
        const trimmed = own.trimmed.quoted || own.trimmed.signature || own.trimmed.forward_header ? own.trimmed : null;
        // The Subject stands in only when the message has no words of its own (photos only).
        const body = words || subject.trim() || (staged.length ? 'Sent by email.' : '');
        if (!stop && !body) stop = 'ignored_empty';
        const sender = from();
        const auth = row.auth;
        const messageId = (headers as Map<string, unknown> | null)?.get('message-id');

        const outcome = await db.transaction(async (tx) => {
          const spoolRows = await lockSpoolRows(tx, spoolKey);
          const mine = spoolRows.find((r) => r.id === id);
          if (!mine || mine.processed_at) return { outcome: 'already_processed', attached: false };
          const lastOfSpool = spoolRows.every((r) => r.id === id || r.processed_at);
          if (lastOfSpool) await needQueue().send('storage.delete-objects', { keys: [spoolKey] }, { tx });
          const ctx = stop ? undefined : await findOpenChannelBook(tx, row.slug, 'email', 'update');
          if (!ctx) {
            const why = stop ?? 'refused:book_closed';
            await finishInboundEmail(tx, id, why, null);
            return { outcome: why, attached: false };
          }
          // The sender is linked to an account only when the From domain is proved, and only as the one
          // address the verdict was computed for (none when the From header was ambiguous).
          let userId: string | null = null;
          const proved = authenticatedSender(auth);
          if (proved && sender.address === proved) {
            const account = await findSenderAccount(tx, ctx.book.id, proved);
            if (account?.role) userId = account.id;
            else if (account) {
              for (const inv of await selectPendingInvitations(tx, 'email', proved)) {
                if (inv.book_id !== ctx.book.id || !(await lockPendingInvitation(tx, inv.id))) continue;
                if ((await countMembersOfBook(tx, ctx.book.id)) >= ctx.planLimits.max_members_per_book) break;
                await joinBook(tx, ctx, account.id, inv.role);
                await markInvitationAccepted(tx, inv.id, account.id);
                await recordInvitationEvent(tx, 'invitation.accepted', ctx.book.id, inv.id);
                userId = account.id;
                break;
              }
            }
          }
          const submission = await deps.submissions.receiveEmail(tx, ctx, { userId, name: sender.name, email: sender.address, text: body, trimmed }, staged);
          await finishInboundEmail(tx, id, 'submitted', submission.id);
          // One reply about the files left out, and only to a sender whose domain vouched for the message (no backscatter).
          if (refused.length && sender.address && (auth.spf === 'pass' || auth.dkim === 'pass') && deps.enqueueMail) {
            await deps.enqueueMail(refusalMail(sender.address, subject, ctx.book.title, refused, typeof messageId === 'string' ? messageId.replace(/^<|>$/g, '') : null, true), tx);
          }
          return { outcome: 'submitted', attached: true };
        });
        if (!outcome.attached) await Promise.all(staged.map((s) => media.discardStaged(s).catch(() => {})));
        o.log?.info({ inbound_email: id, outcome: outcome.outcome, files: staged.length, refused: refused.length }, 'inbound mail');
        return outcome.outcome;
      } catch (err) {
        // Torn down quietly: what they might still say is about the failure already being thrown.
        parser.on('error', () => {});
        source.on('error', () => {});
        parser.destroy();
        source.destroy();
        await Promise.all(staged.map((s) => media.discardStaged(s).catch(() => {})));
        // A message the parser refuses (3,000-deep nesting, 10,000 parts…) fails the same way every time: recorded as refused, never retried.
        if (err === parserError && !sourceFailed) {
          const reason = err instanceof Error ? err.message.slice(0, 200) : 'unreadable';
          await refuseUnparseable(id, spoolKey, row.auth, headers, reason);
          o.log?.warn({ inbound_email: id, reason }, 'inbound mail: refused, the message could not be read');
          return 'refused:unparseable';
        }
        throw err;
      }
    },
  };
}
export type InboundEmailService = ReturnType<typeof createInboundEmailService>;
