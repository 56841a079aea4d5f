import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/config.js';
import { startSmtpReceiver, type SmtpReceiver } from './mail/inbound-receiver.js';
import type { DnsResolver } from './mail/mail-authentication.js';
import type { Services } from './services/index.js';

/** The port `memorybook mail-inbound` listens on when SMTP_INBOUND_PORT is not set (25 needs root; a relay or port forward fronts it). */
export const DEFAULT_SMTP_INBOUND_PORT = 2525;

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
      checkRecipient: (address) => inbound.checkRecipient(address),
      receive: (message, envelope) => inbound.receiveSmtp(message, envelope, { resolver: o.resolver }),
    },
  });
}
