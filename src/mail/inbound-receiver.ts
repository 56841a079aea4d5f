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
  /** Connections one client address may hold at once (default MAX_CONNECTIONS_PER_CLIENT). */
  maxConnectionsPerClient?: number;
  /** How long one DATA may take in all, however slowly it trickles (default DATA_TIME_LIMIT_MS). */
  dataTimeLimitMs?: number;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void };
}

export interface SmtpReceiver {
  port: number;
  close(): Promise<void>;
}

/** Connections in all. */
export const MAX_CONNECTIONS = 100;
/** Connections from one client address (an IPv6 /64 counts as one): a single sender cannot hold the receiver shut. */
export const MAX_CONNECTIONS_PER_CLIENT = 10;
/** One DATA, start to end: a trickle of a byte every few seconds is cut off here (the socket's idle timeout never fires on it). */
export const DATA_TIME_LIMIT_MS = 10 * 60 * 1000;

/** What the per-client cap counts by: the IPv4 address, or the IPv6 /64. */
function clientOf(address: string): string {
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (!a.includes(':')) return a;
  return a.split(':').slice(0, 4).join(':');
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
  const perClientCap = o.maxConnectionsPerClient ?? MAX_CONNECTIONS_PER_CLIENT;
  const dataLimit = o.dataTimeLimitMs ?? DATA_TIME_LIMIT_MS;
  const perClient = new Map<string, number>();
  const counted = new Set<string>();
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
    maxClients: MAX_CONNECTIONS,
    logger: false,
    onConnect(session, callback) {
      const client = clientOf(session.remoteAddress);
      const n = (perClient.get(client) ?? 0) + 1;
      if (n > perClientCap) return callback(smtpError({ code: 421, message: '4.7.0 Too many connections from your address, try again later' }));
      perClient.set(client, n);
      counted.add(session.id);
      callback();
    },
    onClose(session) {
      if (!counted.delete(session.id)) return;
      const client = clientOf(session.remoteAddress);
      const n = (perClient.get(client) ?? 1) - 1;
      if (n > 0) perClient.set(client, n);
      else perClient.delete(client);
    },
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
      // However slowly it trickles, one DATA has DATA_TIME_LIMIT_MS: then the connection is closed (the client may retry).
      const limit = setTimeout(() => {
        o.log.warn({ ip: session.remoteAddress }, 'inbound mail: DATA took too long, connection closed');
        for (const c of (server as unknown as { connections: Set<{ id: string; close(): void }> }).connections) if (c.id === session.id) c.close();
        stream.destroy(new Error('DATA took too long'));
      }, dataLimit);
      stream.once('end', () => clearTimeout(limit));
      stream.once('close', () => clearTimeout(limit));
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
