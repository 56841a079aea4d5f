import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/config.js';
import { startSmtpReceiver, type SmtpReceiver, type SmtpReply } from './mail/inbound-receiver.js';
import type { DnsResolver } from './mail/mail-authentication.js';
import type { Services } from './services/index.js';
import type { SmtpOutcome } from './services/inbound-email/inbound-email-service.js';

/** The port `memorybook mail-inbound` listens on when SMTP_INBOUND_PORT is not set (25 needs root; a relay or port forward fronts it). */
export const DEFAULT_SMTP_INBOUND_PORT = 2525;

const NO_MAILBOX: SmtpReply = { code: 550, message: '5.1.1 No such mailbox here' };

/** What the receiver answers for each outcome of a message (RFC 5321 reply codes, RFC 3463 enhanced status codes). */
export function smtpReplyOf(outcome: SmtpOutcome, maxBytes: number): SmtpReply {
  switch (outcome) {
    case 'accepted':
      return { code: 250, message: '2.0.0 Message accepted' };
    case 'duplicate':
      return { code: 250, message: '2.0.0 Message already received' };
    case 'dropped':
      return { code: 550, message: "5.7.1 Message refused: it failed the sender domain's DMARC check" };
    case 'no_mailbox':
      return NO_MAILBOX;
    case 'too_large':
      return { code: 552, message: `5.3.4 Message exceeds the maximum size of ${maxBytes} bytes` };
  }
}

/**
 * The built-in SMTP receiver wired to the inbound mail service: started by
 * `memorybook mail-inbound` and by `serve` when SMTP_INBOUND_PORT is set.
 * `resolver` replaces DNS for SPF/DKIM/DMARC (tests).
 */
export async function startMailInbound(o: {
  config: Config;
  services: Services;
  log: FastifyBaseLogger;
  port?: number;
  resolver?: DnsResolver;
  /** The receiver's per-client connection cap and DATA time limit, when not the defaults (tests). */
  limits?: { maxConnectionsPerClient?: number; dataTimeLimitMs?: number };
}): Promise<SmtpReceiver> {
  const { config, services, log } = o;
  const inbound = services.inboundEmail;
  await inbound.prepare();
  return startSmtpReceiver({
    host: config.mailInbound.host,
    port: o.port ?? config.mailInbound.port ?? DEFAULT_SMTP_INBOUND_PORT,
    name: config.messaging.inboundMailDomain,
    maxBytes: config.mailInbound.maxBytes,
    tls: config.mailInbound.tls,
    ...o.limits,
    log,
    handler: {
      // An unknown book and one that takes no mail now look the same: no such mailbox.
      checkRecipient: async (address) => ((await inbound.checkRecipient(address)) ? null : NO_MAILBOX),
      receive: async (message, envelope) => smtpReplyOf(await inbound.receiveSmtp(message, envelope, { resolver: o.resolver }), config.mailInbound.maxBytes),
    },
  });
}
