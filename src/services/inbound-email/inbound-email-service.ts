import { once } from 'node:events';
import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { AppError, errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { uuidv7 } from '../../lib/ids.js';
import type { SmtpEnvelope } from '../../mail/inbound-receiver.js';
import { loadMailAuth, verdictFromHeaders, verifyMessage, type DnsResolver, type MailVerdict } from '../../mail/mail-authentication.js';
import type { MailMessage } from '../../mail/mailer.js';
import { addressesIn, collectedAsItGoes, HmacMeter, MessageMeter, MessageTooLargeError, messageIdOf, type RawMessageInfo } from '../../mail/raw-message.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { inboundMessages } from '../../metrics/metrics.js';
import type { BookContext } from '../books/book-types.js';
import { findOpenChannelBook } from '../channels/channel-service.js';
import { acceptInvitation, selectPendingInvitations } from '../invitations/invitation-service.js';
import { forgetPendingKey, recordPendingKey, takePendingObject, type MediaService, type StagedUpload } from '../media/media-service.js';
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

/** The From address a verdict proved (its own parsed address, lower-case), or null: rows recorded before it was kept prove none. */
function authenticatedSender(auth: MailVerdict): string | null {
  return auth.fromAuthenticated && auth.fromAddress ? auth.fromAddress.toLowerCase() : null;
}

/** A book address's slug, lower-case. */
interface BookRecipient {
  slug: string;
}

/** What a message over SMTP came to (the receiver says it in SMTP's words). */
export type SmtpOutcome = 'accepted' | 'duplicate' | 'dropped' | 'no_mailbox' | 'too_large';

/** What a webhook delivery came to. */
export type WebhookOutcome = 'accepted' | 'duplicate' | 'dropped';

/** A webhook body whose signature held, in a temporary file until it is spooled (or discarded). */
export interface SignedMessage {
  reader: Readable;
  discard(): void;
}

interface Refused {
  filename: string;
  reason: string;
}

/**
 * Memories by email. A message arrives through the SMTP receiver
 * (receiveSmtp, after checkRecipient at RCPT TO) or the signed webhook
 * (readSignedMessage, then receiveSignedMessage: its body only once its
 * signature is checked, admitted by the webhook's HTTP plugin) and is
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
  queue: JobSender;
  enqueueMail: (message: MailMessage, tx: Tx) => Promise<void>;
}) {
  const { db, config, store, media } = deps;
  const domain = config.messaging.inboundMailDomain;
  const maxBytes = config.mailInbound.maxBytes;

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

  /**
   * Streams the raw message into the store under a new key, metered (size
   * ceiling, header block, body hash). The key is recorded as pending first,
   * so a process that dies mid-message leaves nothing the sweep does not remove.
   */
  async function spool(source: Readable, hmac?: HmacMeter): Promise<{ key: string; info: RawMessageInfo }> {
    const key = `inbound-mail/${uuidv7()}.eml`;
    const meter = new MessageMeter(maxBytes);
    await recordPendingKey(db, key);
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
      await forgetPendingKey(db, key).catch(() => {});
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
    await forgetPendingKey(db, key);
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
            await deps.queue.send('email.process', { inboundEmailId: id }, { tx });
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
      if (spoolRows.every((r) => r.id === id || r.processed_at)) await deps.queue.send('storage.delete-objects', { keys: [spoolKey] }, { tx });
      await finishInboundEmail(tx, id, 'refused:unparseable', null);
      if (to && (auth.spf === 'pass' || auth.dkim === 'pass')) {
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

    /** At RCPT TO: whether the address is a book's whose book takes mail now (an unknown and a closed book look the same). */
    async checkRecipient(address: string): Promise<boolean> {
      const r = recipientOf(address);
      if (r && (await openBookFor(db, r))) return true;
      count('refused_no_book');
      return false;
    },

    /**
     * At the end of DATA: spool, verify SPF/DKIM/DMARC, record; what came of
     * it (the receiver answers it in SMTP's words): accepted, duplicate (that
     * message was received before), dropped (DMARC fail), no_mailbox (no
     * book it names takes mail), too_large.
     */
    async receiveSmtp(message: Readable, envelope: SmtpEnvelope, o: { resolver?: DnsResolver } = {}): Promise<SmtpOutcome> {
      let spooled: { key: string; info: RawMessageInfo };
      try {
        spooled = await spool(message);
      } catch (err) {
        if (err instanceof MessageTooLargeError) {
          count('refused_too_large');
          return 'too_large';
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
      if (r.dropped) return 'dropped';
      if (!r.accepted && !r.duplicates) return 'no_mailbox';
      return r.accepted ? 'accepted' : 'duplicate';
    },

    /**
     * A raw message posted by an inbound mail provider, signed with
     * HMAC-SHA256 under INBOUND_EMAIL_SECRET, read but not yet believed: the
     * body streams, metered and hashed, into an unlinked temporary file on
     * this machine (nothing a crash can leave, no database row, nothing in
     * the store). Null when the signature does not match (nothing is kept);
     * 413 past the ceiling. Who may send, and how many bodies at once, is
     * the webhook's admission control (http/plugins/inbound-admission.ts).
     */
    async readSignedMessage(body: Readable, signature: string): Promise<SignedMessage | null> {
      const secret = config.mailInbound.webhookSecret;
      if (!secret || !config.mailInbound.webhookAuthservId) throw errors.forbidden('The request is refused: INBOUND_EMAIL_SECRET is not set.');
      const hmac = new HmacMeter(secret);
      let temp: Awaited<ReturnType<typeof unlinkedTempFile>> | undefined;
      try {
        temp = await unlinkedTempFile();
        await readInto(body, hmac, temp.writer);
      } catch (err) {
        temp?.discard();
        if (err instanceof MessageTooLargeError) {
          count('refused_too_large');
          throw errors.payloadTooLarge(`The message is larger than ${maxBytes} bytes.`, { max_bytes: maxBytes });
        }
        throw err;
      }
      if (hmac.matches(signature)) return { reader: temp.reader, discard: temp.discard };
      temp.discard();
      return null;
    },

    /**
     * A signed message (readSignedMessage's), spooled and recorded. The
     * recipients are the book addresses in its own (signed) Delivered-To,
     * X-Original-To, To and Cc; the verdicts are the provider's
     * Authentication-Results under INBOUND_EMAIL_AUTHSERV_ID. 404 when no
     * book it names takes mail.
     */
    async receiveSignedMessage(message: SignedMessage): Promise<WebhookOutcome> {
      try {
        const spooled = await spool(message.reader);
        const recipients = addressesIn(spooled.info.headers, ['delivered-to', 'x-original-to', 'to', 'cc']).map(recipientOf).filter((r): r is BookRecipient => r !== null);
        const verdict = verdictFromHeaders(spooled.info.headers, config.mailInbound.webhookAuthservId!);
        const r = await accept('webhook', spooled.key, spooled.info, verdict, recipients);
        if (!r.accepted && !r.duplicates && !r.dropped) throw errors.notFound('book');
        return r.accepted ? 'accepted' : r.dropped ? 'dropped' : 'duplicate';
      } finally {
        message.discard();
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
          if (lastOfSpool) await deps.queue.send('storage.delete-objects', { keys: [spoolKey] }, { tx });
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
                if (inv.book_id !== ctx.book.id) continue;
                // Not a member (no role in the book): joins with the invitation's role, unless the book is full.
                const r = await acceptInvitation(tx, { ...ctx, role: null }, inv, () => account, { whenFull: 'leave' });
                if (r.outcome === 'gone') continue;
                if (r.outcome === 'accepted') userId = account.id;
                break;
              }
            }
          }
          const submission = await deps.submissions.receiveEmail(tx, ctx, { userId, name: sender.name, email: sender.address, text: body, trimmed }, staged);
          await finishInboundEmail(tx, id, 'submitted', submission.id);
          // One reply about the files left out, and only to a sender whose domain vouched for the message (no backscatter).
          if (refused.length && sender.address && (auth.spf === 'pass' || auth.dkim === 'pass')) {
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
