import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inSpan, SpanKind } from '../lib/tracing.js';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config/config.js';
import { AppError, errors } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header fields (List-Unsubscribe and List-Unsubscribe-Post on stream mail). */
  headers?: Record<string, string>;
}

/** The port every sender uses; which transport is behind it is the operator's choice. */
export interface SendOptions {
  /**
   * A stable id for this message (the mail job's id): sent again after a crash,
   * it carries the same Message-ID, which mail systems use to drop the
   * duplicate, and the outbox writes the same file again instead of a second.
   */
  id?: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage, options?: SendOptions): Promise<{ messageId: string }>;
  close(): void;
}

/** SMTP when SMTP_URL is set; otherwise `.eml` files in DATA_DIR/outbox that an operator can read. */
export function createMailer(config: Config): Mailer {
  return config.mail.smtpUrl ? createSmtpMailer(config.mail.smtpUrl, config.mail.from) : createOutboxMailer(path.join(config.dataDir, 'outbox'), config.mail.from);
}

/** nodemailer is loaded with the first message, not at start (most processes send none for a while). */
function lazyTransport(create: (nodemailer: (typeof import('nodemailer'))['default']) => Transporter) {
  let transport: Promise<Transporter> | undefined;
  let created: Transporter | undefined;
  let closed = false;
  return {
    get: () =>
      (transport ??= import('nodemailer').then((m) => {
        created = create(m.default);
        if (closed) created.close(); // closed while it was loading: as closed as one made before
        return created;
      })),
    close() {
      closed = true;
      created?.close();
    },
  };
}

export function createSmtpMailer(url: string, from: string): Mailer {
  const smtpTarget = smtpSpanAttributes(url);
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport(url, { from }));
  return {
    kind: 'smtp',
    async send(m, o = {}) {
      try {
        // A client span per message (tracing on): the SMTP server, never the recipient or the subject.
        return await inSpan('smtp send', { kind: SpanKind.CLIENT, attributes: smtpTarget }, async () => {
          const info = await (await transport.get()).sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html, headers: m.headers, messageId: messageIdOf(o.id, from) });
          return { messageId: String(info.messageId) };
        });
      } catch (err) {
        throw mailOutage(err) ?? err;
      }
    },
    close: () => transport.close(),
  };
}

/** nodemailer's codes for a server it could not reach or that dropped the connection; 421 is SMTP's "service not available". */
const MAIL_CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH']);

/** The mail server is unreachable: an AppError naming it (a job retries; counted and logged per dependency), else undefined. */
export function mailOutage(err: unknown): AppError | undefined {
  if (!(err instanceof Error) || err instanceof AppError) return undefined;
  const { code, responseCode } = err as { code?: unknown; responseCode?: unknown };
  if ((typeof code === 'string' && MAIL_CONNECTION_CODES.has(code)) || responseCode === 421) return errors.dependencyDown('mail', err);
  return undefined;
}

/** `<id@sender-domain>` for a stable id; undefined lets nodemailer make a fresh one. */
function messageIdOf(id: string | undefined, from: string): string | undefined {
  if (!id) return undefined;
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'memorybook.invalid';
  return `<${id.replace(/[^A-Za-z0-9._-]/g, '')}@${domain}>`;
}

/**
 * Writes each message as an RFC 5322 `.eml` file, built by nodemailer's own
 * stream transport so it is byte-for-byte what SMTP would have carried.
 * Written under a temporary name and renamed, so a reader never sees half a file.
 */
export function createOutboxMailer(dir: string, from: string): Mailer {
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  return {
    kind: 'outbox',
    async send(m, o = {}) {
      mkdirSync(dir, { recursive: true });
      const info = await (await transport.get()).sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html, headers: m.headers, messageId: messageIdOf(o.id, from) });
      // One file per message: a message sent again under its stable id replaces its own file.
      const name = o.id ? `mail-${o.id.replace(/[^A-Za-z0-9._-]/g, '')}.eml` : `${new Date().toISOString().replace(/[:.]/g, '-')}-${uuidv7()}.eml`;
      const tmp = path.join(dir, `.${name}.tmp`);
      writeFileSync(tmp, info.message as Buffer, { mode: 0o640 });
      renameSync(tmp, path.join(dir, name));
      return { messageId: String(info.messageId) };
    },
    close: () => transport.close(),
  };
}

/** The SMTP server's host and port for a span (never the URL: it may hold credentials). */
function smtpSpanAttributes(url: string): Record<string, string | number> {
  try {
    const u = new URL(url);
    return { 'network.protocol.name': 'smtp', 'server.address': u.hostname, ...(u.port ? { 'server.port': Number(u.port) } : {}) };
  } catch {
    return { 'network.protocol.name': 'smtp' };
  }
}
