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

/** The credentials the server checks before it serves a file (each provider's own way). */
export interface ProviderCredentials {
  twilio?: { accountSid: string; authToken: string };
  telegram?: { botToken: string };
  whatsapp?: { accessToken: string };
}

export interface ServedFile {
  body: Buffer;
  contentType: string;
  /** Send this many bytes, then hold the rest until `release()` (a download cut off by a crash). */
  stallAfter?: number;
  /** WhatsApp: the URL the media endpoint answers (default: this server's own download path). */
  whatsappUrl?: string;
  /** Answer a download with a 307 to this URL instead of the bytes. */
  redirectTo?: string;
}

export interface TestProviderServer {
  /** http://127.0.0.1:<port>, for TWILIO_API_BASE and TELEGRAM_API_BASE. */
  url: string;
  received: ProviderRequest[];
  /** Resolves once at least n requests matching `filter` arrived (or rejects after timeoutMs). */
  waitFor(n: number, filter?: (r: ProviderRequest) => boolean, timeoutMs?: number): Promise<ProviderRequest[]>;
  /** Makes the next n requests fail with this status (a provider outage). */
  failNext(n: number, status?: number): void;
  /**
   * Files the server holds: Twilio media at /2010-04-01/Accounts/{sid}/Messages/{msg}/Media/{key},
   * Telegram files by file_id (getFile, then /file/bot{token}/media/{key}), WhatsApp media by id
   * (/{key} answers a URL on this server, /whatsapp-media/{key} serves it).
   */
  files: Map<string, ServedFile>;
  /** Lets stalled downloads go on (and later ones go through whole). */
  release(): void;
  close(): Promise<void>;
}

/**
 * A local HTTP server speaking just enough of the Twilio Messages API and the
 * Telegram Bot API for the outbound ports, recording every request. Twilio:
 * POST /2010-04-01/Accounts/{sid}/Messages.json answers 201 {sid}; Telegram:
 * POST /bot{token}/sendMessage answers {ok: true, result: {message_id}};
 * WhatsApp: POST /{phone-number-id}/messages answers {messages: [{id}]}.
 * It serves the files people sent (see `files`) only with each provider's
 * credentials: Twilio's basic auth, the bot token in Telegram's paths,
 * WhatsApp's bearer token; anything else is 401.
 */
export async function startProviderServer(o: { credentials?: ProviderCredentials } = {}): Promise<TestProviderServer> {
  const received: ProviderRequest[] = [];
  const files = new Map<string, ServedFile>();
  let released = false;
  const waiting: (() => void)[] = [];
  let base = '';
  const creds = o.credentials ?? {};
  const basic = creds.twilio ? `Basic ${Buffer.from(`${creds.twilio.accountSid}:${creds.twilio.authToken}`).toString('base64')}` : null;
  const bearer = creds.whatsapp ? `Bearer ${creds.whatsapp.accessToken}` : null;
  const tgToken = creds.telegram?.botToken ?? null;

  function serve(res: import('node:http').ServerResponse, key: string) {
    const file = files.get(key);
    if (!file) {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: 'no such file' }));
      return;
    }
    if (file.redirectTo) {
      res.statusCode = 307;
      res.setHeader('location', file.redirectTo);
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('content-type', file.contentType);
    res.setHeader('content-length', String(file.body.length));
    if (file.stallAfter === undefined || released) {
      res.end(file.body);
      return;
    }
    res.write(file.body.subarray(0, file.stallAfter));
    waiting.push(() => res.end(file.body.subarray(file.stallAfter)));
  }

  function refuse(res: import('node:http').ServerResponse) {
    res.statusCode = 401;
    res.end(JSON.stringify({ error: 'bad credentials' }));
  }
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
      const url = new URL(req.url ?? '/', 'http://provider.test');
      if (req.method === 'GET') {
        let m: RegExpExecArray | null;
        if ((m = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\/[^/]+\/Media\/([^/]+)$/.exec(url.pathname))) {
          if (!basic || req.headers.authorization !== basic || m[1] !== creds.twilio!.accountSid) return refuse(res);
          return serve(res, m[2]);
        }
        if ((m = /^\/bot([^/]+)\/getFile$/.exec(url.pathname))) {
          if (!tgToken || m[1] !== tgToken) return refuse(res);
          const id = url.searchParams.get('file_id') ?? '';
          if (!files.has(id)) {
            res.statusCode = 400;
            return res.end(JSON.stringify({ ok: false, error_code: 400, description: 'Bad Request: invalid file_id' }));
          }
          return res.end(JSON.stringify({ ok: true, result: { file_id: id, file_path: `media/${id}` } }));
        }
        if ((m = /^\/file\/bot([^/]+)\/media\/([^/]+)$/.exec(url.pathname))) {
          if (!tgToken || m[1] !== tgToken) return refuse(res);
          return serve(res, m[2]);
        }
        if ((m = /^\/whatsapp-media\/([^/]+)$/.exec(url.pathname))) {
          if (!bearer || req.headers.authorization !== bearer) return refuse(res);
          return serve(res, m[1]);
        }
        if ((m = /^\/([^/]+)$/.exec(url.pathname)) && files.has(m[1])) {
          if (!bearer || req.headers.authorization !== bearer) return refuse(res);
          const file = files.get(m[1])!;
          // A URL the test planted (another host) or this server's own download path.
          const link = file.whatsappUrl ?? `${base}/whatsapp-media/${m[1]}`;
          return res.end(JSON.stringify({ messaging_product: 'whatsapp', url: link, mime_type: file.contentType, file_size: file.body.length, id: m[1] }));
        }
      }
      if (req.method === 'POST' && /^\/[^/]+\/messages$/.test(url.pathname) && !url.pathname.startsWith('/bot')) {
        if (!bearer || req.headers.authorization !== bearer) return refuse(res);
        return res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: json?.to, wa_id: json?.to }], messages: [{ id: `wamid.test${seq}` }] }));
      }
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
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    received,
    files,
    release() {
      released = true;
      for (const w of waiting.splice(0)) w();
    },
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
