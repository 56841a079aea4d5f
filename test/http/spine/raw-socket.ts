import { connect } from 'node:net';

/** Bytes to send, or a pause before the next ones. */
export type Step = string | Buffer | { waitMs: number };

export interface RawExchange {
  /** Everything the server sent. */
  received: Buffer;
  /** When the server closed the connection, in ms from connecting; null when it was still open at `giveUpMs`. */
  closedAfterMs: number | null;
}

/**
 * One raw TCP conversation, as a client that cannot be trusted would have it:
 * the steps are written in order (stopping once the server hangs up), and the
 * answer is read until the server closes the connection or `giveUpMs` passes.
 */
export function rawExchange(port: number, steps: Step[], giveUpMs = 10_000): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = (closedAfterMs: number | null) => {
      clearTimeout(giveUp);
      resolve({ received: Buffer.concat(chunks), closedAfterMs });
    };
    const giveUp = setTimeout(() => {
      socket.destroy();
      finish(null);
    }, giveUpMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {}); // a reset after the server answered is part of hanging up
    socket.on('close', () => {
      if (closed) return;
      closed = true;
      finish(Date.now() - started);
    });
    socket.once('connect', async () => {
      for (const step of steps) {
        if (closed || socket.destroyed) return;
        if (typeof step === 'object' && !Buffer.isBuffer(step)) await new Promise((r) => setTimeout(r, step.waitMs));
        else socket.write(step);
      }
    });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** The first HTTP response in `received`, its body parsed as JSON when it says so. */
export function parseResponse(received: Buffer): RawResponse {
  const text = received.toString('utf8');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`no complete HTTP response in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length']);
  const rawBody = Buffer.from(text.slice(headEnd + 4)).subarray(0, Number.isFinite(length) ? length : undefined).toString('utf8');
  return { status, headers, body: String(headers['content-type']).includes('json') ? JSON.parse(rawBody) : rawBody };
}
