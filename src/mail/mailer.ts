import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config/config.js';
import { uuidv7 } from '../lib/ids.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** The port every sender uses; which transport is behind it is the operator's choice. */
export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

/** SMTP when SMTP_URL is set; otherwise `.eml` files in DATA_DIR/outbox that an operator can read. */
export function createMailer(config: Config): Mailer {
  return config.mail.smtpUrl ? createSmtpMailer(config.mail.smtpUrl, config.mail.from) : createOutboxMailer(path.join(config.dataDir, 'outbox'), config.mail.from);
}

export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url, { from });
  return {
    kind: 'smtp',
    async send(m) {
      const info = await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html });
      return { messageId: String(info.messageId) };
    },
    close: () => transport.close(),
  };
}

/**
 * Writes each message as an RFC 5322 `.eml` file, built by nodemailer's own
 * stream transport so it is byte-for-byte what SMTP would have carried.
 * Written under a temporary name and renamed, so a reader never sees half a file.
 */
export function createOutboxMailer(dir: string, from: string): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send(m) {
      mkdirSync(dir, { recursive: true });
      const info = await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${uuidv7()}.eml`;
      const tmp = path.join(dir, `.${name}.tmp`);
      writeFileSync(tmp, info.message as Buffer, { mode: 0o640 });
      renameSync(tmp, path.join(dir, name));
      return { messageId: String(info.messageId) };
    },
    close: () => transport.close(),
  };
}
