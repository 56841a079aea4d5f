import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { SMTPServer as SMTPServerType, SMTPServerOptions } from 'smtp-server';

/** The SMTP envelope of one message, and who sent it. */
export interface SmtpEnvelope {
  /** The connecting client's IP address. */
  ip: string;
  /** The name it gave in EHLO/HELO. */
  helo: string;
  /** MAIL FROM (empty for a bounce). */
  sender: string;
  /** RCPT TO, each accepted by checkRecipient. */
  recipients: string[];
}

/** An SMTP reply: 2xx accepts, 4xx asks to try later, 5xx refuses. */
export interface SmtpReply {
  code: number;
  message: string;
}

/** What the receiver asks of the service behind it. */
export interface InboundMailHandler {
  /** At RCPT TO: a reply to refuse the address (550 for no such mailbox), or null to take it. */
  checkRecipient(address: string): Promise<SmtpReply | null>;
  /** At the end of DATA (the stream is the message as it arrives): the reply to give. */
  receive(message: Readable, envelope: SmtpEnvelope): Promise<SmtpReply>;
}

export interface SmtpReceiverOptions {
  host: string;
  port: number;
  /** This server's name (greeting, Received, Authentication-Results). */
  name: string;
  maxBytes: number;
  tls: { keyPath: string; certPath: string } | null;
  handler: InboundMailHandler;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void };
}

export interface SmtpReceiver {
  port: number;
  close(): Promise<void>;
}

const smtpError = (reply: SmtpReply) => Object.assign(new Error(reply.message), { responseCode: reply.code });

/**
 * The service's own SMTP receiver (nodemailer's smtp-server): no AUTH (it
 * takes mail for the books' addresses only, never relays), STARTTLS when a
 * certificate is configured, SIZE advertised and enforced at the ceiling,
 * recipients checked one by one at RCPT TO. The message streams to the
 * handler as it arrives; the DATA reply waits for the handler's answer.
 */
export async function startSmtpReceiver(o: SmtpReceiverOptions): Promise<SmtpReceiver> {
  const { SMTPServer } = (await import('smtp-server')) as unknown as { SMTPServer: typeof SMTPServerType };
  const tls = o.tls ? { key: readFileSync(o.tls.keyPath), cert: readFileSync(o.tls.certPath) } : null;
  const options: SMTPServerOptions = {
    name: o.name,
    banner: 'memorybook',
    secure: false,
    ...(tls ?? {}),
    // Without a certificate STARTTLS is not offered (smtp-server would otherwise use a self-signed one).
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    authOptional: true,
    size: o.maxBytes,
    maxClients: 100,
    logger: false,
    onRcptTo(address, _session, callback) {
      o.handler.checkRecipient(address.address).then(
        (refusal) => callback(refusal ? smtpError(refusal) : undefined),
        (err: unknown) => {
          o.log.error({ err }, 'inbound mail: recipient check failed');
          callback(smtpError({ code: 451, message: 'Temporary failure, try again later' }));
        },
      );
    },
    onData(stream, session, callback) {
      const envelope: SmtpEnvelope = {
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs ?? '',
        sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        recipients: session.envelope.rcptTo.map((r) => r.address),
      };
      const finish = async (reply: SmtpReply) => {
        // Whatever the handler read, the rest of DATA is read (and dropped) before the reply.
        if (!stream.readableEnded && !stream.destroyed) {
          stream.unpipe();
          stream.resume();
          await finished(stream).catch(() => {});
        }
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded) reply = { code: 552, message: `Message exceeds the maximum size of ${o.maxBytes} bytes` };
        callback(reply.code >= 400 ? smtpError(reply) : null, reply.message);
      };
      o.handler.receive(stream, envelope).then(finish, (err: unknown) => {
        o.log.error({ err }, 'inbound mail: receiving failed');
        return finish({ code: 451, message: 'Temporary failure, try again later' });
      });
    },
  };
  const server = new SMTPServer(options);
  server.on('error', (err) => o.log.warn({ err }, 'inbound mail: connection error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as { port: number }).port;
  o.log.info({ host: o.host, port, starttls: Boolean(tls) }, 'inbound mail: SMTP receiver listening');
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
