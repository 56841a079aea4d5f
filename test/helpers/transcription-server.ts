import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';

/** One request the provider received: the form fields and what the file part held (counted as it streamed, never kept). */
export interface TranscriptionRequest {
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** Chunked when the client streamed the body (no Content-Length). */
  transferEncoding: string | undefined;
  fields: Record<string, string[]>;
  file: { filename: string; mimeType: string; bytes: number; sha256: string; head: Buffer } | null;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface TestTranscriptionServer {
  /** http://127.0.0.1:<port>, for TRANSCRIPTION_URL. */
  url: string;
  received: TranscriptionRequest[];
  /** The next answers, in order, instead of a transcript (a 500, a 429 with Retry-After, a 400). */
  script(...answers: ScriptedAnswer[]): void;
  /** Every request answers this until cleared (a provider that keeps failing). */
  failAlways(answer: ScriptedAnswer | null): void;
  /** What a transcript says for a request (default: a few sentences naming the file's size). */
  transcriptFor: (r: TranscriptionRequest) => { text: string; segments: { start: number; end: number; text: string }[]; language: string };
  close(): Promise<void>;
}

/**
 * A local transcription provider speaking OpenAI's `POST /v1/audio/transcriptions`:
 * multipart/form-data in (file, model, response_format, language,
 * timestamp_granularities[]), `verbose_json` out ({task, language (a
 * language name, as OpenAI answers), duration, text, segments: [{id, seek,
 * start, end, text, tokens, temperature, avg_logprob, compression_ratio,
 * no_speech_prob}]}). Errors are OpenAI's envelope ({error: {message, type,
 * param, code}}). With `apiKey` every request must carry it as a bearer token
 * (401 otherwise). The file part is read as it arrives and only counted and
 * hashed, so a 30-minute recording costs the server no memory either.
 */
export async function startTranscriptionServer(o: { apiKey?: string } = {}): Promise<TestTranscriptionServer> {
  const received: TranscriptionRequest[] = [];
  const scripted: ScriptedAnswer[] = [];
  let always: ScriptedAnswer | null = null;

  const send = (res: ServerResponse, a: ScriptedAnswer) => {
    res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) });
    res.end(JSON.stringify(a.body ?? { error: { message: `scripted ${a.status}`, type: a.status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } }));
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Unknown request URL: ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } }));
      return;
    }
    const r: TranscriptionRequest = {
      path: req.url,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      transferEncoding: req.headers['transfer-encoding'],
      fields: {},
      file: null,
    };
    let bb: BusboyInstance;
    try {
      bb = new Busboy({ headers: req.headers as BusboyHeaders, limits: { fileSize: Number.MAX_SAFE_INTEGER } });
    } catch {
      send(res, { status: 400, body: { error: { message: 'Expected multipart/form-data', type: 'invalid_request_error', param: null, code: null } } });
      return;
    }
    bb.on('field', (name: string, value: string) => {
      (r.fields[name] ??= []).push(value);
    });
    bb.on('file', (_field: string, file: NodeJS.ReadableStream, filename: string, _enc: string, mimeType: string) => {
      const hash = createHash('sha256');
      let bytes = 0;
      const head: Buffer[] = [];
      file.on('data', (chunk: Buffer) => {
        if (bytes < 64) head.push(chunk.subarray(0, 64 - bytes));
        bytes += chunk.length;
        hash.update(chunk);
      });
      file.on('end', () => {
        r.file = { filename, mimeType, bytes, sha256: hash.digest('hex'), head: Buffer.concat(head) };
      });
    });
    bb.on('finish', () => {
      received.push(r);
      if (o.apiKey && r.authorization !== `Bearer ${o.apiKey}`) {
        return send(res, { status: 401, body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } });
      }
      const next = scripted.shift() ?? always;
      if (next) return send(res, next);
      if (!r.file || r.file.bytes === 0) {
        return send(res, { status: 400, body: { error: { message: 'The audio file could not be decoded or its format is not supported.', type: 'invalid_request_error', param: 'file', code: null } } });
      }
      if (!r.fields.model?.[0]) return send(res, { status: 400, body: { error: { message: 'you must provide a model parameter', type: 'invalid_request_error', param: 'model', code: null } } });
      const t = api.transcriptFor(r);
      const format = r.fields.response_format?.[0] ?? 'json';
      if (format !== 'verbose_json') return send(res, { status: 200, body: { text: t.text } });
      send(res, {
        status: 200,
        body: {
          task: 'transcribe',
          language: t.language,
          duration: t.segments.at(-1)?.end ?? 0,
          text: t.text,
          segments: t.segments.map((s, id) => ({ id, seek: 0, start: s.start, end: s.end, text: ` ${s.text}`, tokens: [50364, 2425], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.3, no_speech_prob: 0.01 })),
        },
      });
    });
    bb.on('error', () => send(res, { status: 400, body: { error: { message: 'Malformed multipart body', type: 'invalid_request_error', param: null, code: null } } }));
    req.pipe(bb);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const NAMES: Record<string, string> = { en: 'english', de: 'german', fr: 'french', es: 'spanish' };
  const api: TestTranscriptionServer = {
    url: `http://127.0.0.1:${port}`,
    received,
    script: (...answers) => void scripted.push(...answers),
    failAlways: (a) => void (always = a),
    transcriptFor: (r) => {
      const language = NAMES[r.fields.language?.[0] ?? 'en'] ?? r.fields.language![0];
      const first = `This is a voice note of ${r.file!.bytes} bytes.`;
      const second = 'Happy birthday, we love you.';
      return { language, text: ` ${first} ${second}`, segments: [{ start: 0, end: 1.5, text: first }, { start: 1.5, end: 3.25, text: second }] };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return api;
}
