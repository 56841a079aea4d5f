import { createHmac } from 'node:crypto';
import pino from 'pino';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { FastifyBaseLogger } from 'fastify';
import { startMailInbound } from '../../src/mail-inbound.js';
import type { DnsResolver } from '../../src/mail/mail-authentication.js';
import type { SmtpReceiver } from '../../src/mail/inbound-receiver.js';
import type { TestApp } from '../helpers/build-test-app.js';

export const MAIL_DOMAIN = 'mail.memories.test';
export const INBOUND_SECRET = 'inbound-email-secret-0123456789abcdef';

/**
 * DNS as the tests need it, no network: `family.test` sends from 127.0.0.1
 * (SPF pass) under a DMARC reject policy, so its mail passes DMARC;
 * `spoofed.test` allows no sender (SPF fail) under the same policy, so mail
 * claiming to be from it fails DMARC; any other name has no records.
 */
const RECORDS: Record<string, string[][]> = {
  'TXT:family.test': [['v=spf1 ip4:127.0.0.1 ip6:::1 -all']],
  'TXT:_dmarc.family.test': [['v=DMARC1; p=reject']],
  'TXT:spoofed.test': [['v=spf1 -all']],
  'TXT:_dmarc.spoofed.test': [['v=DMARC1; p=reject']],
  // An attacker's own domain: SPF passes for 127.0.0.1, no DMARC record (nor has victim.test one).
  'TXT:evil.test': [['v=spf1 ip4:127.0.0.1 ip6:::1 -all']],
};

export const fakeDns: DnsResolver = async (domain, rrtype) => {
  const found = RECORDS[`${rrtype.toUpperCase()}:${domain.toLowerCase().replace(/\.$/, '')}`];
  if (found) return found;
  throw Object.assign(new Error(`queryTxt ENOTFOUND ${domain}`), { code: 'ENOTFOUND' });
};

/** The authserv-id the test provider writes in its Authentication-Results. */
export const AUTHSERV_ID = 'mx.provider.test';

export function inboundEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { MAIL_INBOUND_DOMAIN: MAIL_DOMAIN, INBOUND_EMAIL_SECRET: INBOUND_SECRET, INBOUND_EMAIL_AUTHSERV_ID: AUTHSERV_ID, SMTP_INBOUND_PORT: '0', ...extra };
}

/** The book's mail address as its owner sees it: the email row of GET /books/{slug}/channels/. */
export async function mailAddressOf(t: TestApp, slug: string, token: string): Promise<string> {
  const res = await t.get(`/api/v1/books/${slug}/channels/`, { token });
  const row = (res.body.items as { channel: string; address: string | null }[]).find((r) => r.channel === 'email');
  if (!row?.address) throw new Error(`book ${slug} shows no mail address`);
  return row.address;
}

/** The real SMTP receiver on a free loopback port, over the test app's services. */
export async function startReceiver(t: TestApp, limits?: { maxConnectionsPerClient?: number; dataTimeLimitMs?: number }): Promise<SmtpReceiver> {
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) as unknown as FastifyBaseLogger;
  return startMailInbound({ config: t.config, services: t.services, log, port: 0, resolver: fakeDns, limits });
}

/** Sends one message to the receiver with nodemailer, as a mail server would deliver it. */
export async function deliver(receiver: SmtpReceiver, message: Mail.Options): Promise<SMTPTransport.SentMessageInfo> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: receiver.port, secure: false, ignoreTLS: true, name: 'mx.family.test' });
  try {
    return await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

/** Sends raw RFC 5322 bytes as they are (a From field nodemailer would rewrite), with this envelope. */
export async function deliverRaw(receiver: SmtpReceiver, envelope: { from: string; to: string[] }, raw: Buffer | string): Promise<SMTPTransport.SentMessageInfo> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: receiver.port, secure: false, ignoreTLS: true, name: 'mx.family.test' });
  try {
    return await transport.sendMail({ envelope, raw });
  } finally {
    transport.close();
  }
}

/** The raw RFC 5322 bytes nodemailer would send for a message. */
export async function rawMessage(message: Mail.Options): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'crlf' });
  return (await transport.sendMail(message)).message as Buffer;
}

/** The provider's signature over a webhook body. */
export const signBody = (body: Buffer, secret = INBOUND_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export const QUOTED_REPLY = [
  'We spent every summer at the lake house.',
  'Grandpa taught me to fish off the old dock.',
  '',
  'On Mon, 3 Jun 2024 at 10:00, Ann Example <ann@example.com>',
  'wrote:',
  '> Please share a memory for Rose\'s book!',
  '> Thanks, Ann',
  '',
  '-- ',
  'Rose Miller',
  'Sent from my phone',
].join('\r\n');
export const OWN_WORDS = 'We spent every summer at the lake house.\nGrandpa taught me to fish off the old dock.';
