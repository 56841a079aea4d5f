import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body as form fields (Twilio) or JSON (Telegram), whichever it is. */
  form: Record<string, string>;
  json: any;
}

export interface TestProviderServer {
  /** http://127.0.0.1:<port>, for TWILIO_API_BASE and TELEGRAM_API_BASE. */
  url: string;
  received: ProviderRequest[];
  /** Resolves once at least n requests matching `filter` arrived (or rejects after timeoutMs). */
  waitFor(n: number, filter?: (r: ProviderRequest) => boolean, timeoutMs?: number): Promise<ProviderRequest[]>;
  /** Makes the next n requests fail with this status (a provider outage). */
  failNext(n: number, status?: number): void;
  close(): Promise<void>;
}

/**
 * A local HTTP server speaking just enough of the Twilio Messages API and the
 * Telegram Bot API for the outbound ports, recording every request. Twilio:
 * POST /2010-04-01/Accounts/{sid}/Messages.json answers 201 {sid}; Telegram:
 * POST /bot{token}/sendMessage answers {ok: true, result: {message_id}}.
 */
export async function startProviderServer(): Promise<TestProviderServer> {
  const received: ProviderRequest[] = [];
  let failures: { left: number; status: number } = { left: 0, status: 500 };
  let seq = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const type = String(req.headers['content-type'] ?? '');
      let json: any = null;
      if (type.includes('json')) {
        try {
          json = JSON.parse(body);
        } catch {
          json = null;
        }
      }
      const form = type.includes('x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(body)) : {};
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, form, json });
      res.setHeader('content-type', 'application/json');
      if (failures.left > 0) {
        failures.left--;
        res.statusCode = failures.status;
        res.end(JSON.stringify({ code: 20500, message: 'test outage', ok: false, error_code: failures.status }));
        return;
      }
      seq++;
      if (/^\/2010-04-01\/Accounts\/[^/]+\/Messages\.json$/.test(req.url ?? '')) {
        res.statusCode = 201;
        res.end(JSON.stringify({ sid: `SM${String(seq).padStart(32, '0')}`, status: 'queued', to: form.To, from: form.From, body: form.Body }));
      } else if (/^\/bot[^/]+\/sendMessage$/.test(req.url ?? '')) {
        res.end(JSON.stringify({ ok: true, result: { message_id: seq, chat: { id: json?.chat_id }, text: json?.text } }));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async waitFor(n, filter = () => true, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(filter);
        if (matching.length >= n) return matching;
        if (Date.now() > deadline) throw new Error(`expected ${n} provider requests, got ${matching.length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    failNext(n, status = 500) {
      failures = { left: n, status };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
