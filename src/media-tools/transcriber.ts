import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { APIError } from 'openai';
import type { Config } from '../config/config.js';
import { resolveTool, type MediaToolOptions } from './ffmpeg.js';

/**
 * The transcription provider: any OpenAI-compatible `POST /v1/audio/transcriptions`
 * (OpenAI, whisper.cpp's server, faster-whisper servers, LocalAI), through
 * the official `openai` client pointed at TRANSCRIPTION_URL. The recording is
 * streamed into the multipart body as it is read (`toStreamingFile`): no
 * file is held in memory, whatever its length. The client's own retries are
 * off: a streamed body cannot be sent twice, so the caller's job retries.
 * The client (some 150 modules) is loaded with the first recording, not as
 * the server starts.
 */

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
}

export interface Transcript {
  /** ISO 639-1 when the provider names it (OpenAI answers a language name, mapped here); null when it does not say. */
  language: string | null;
  text: string;
  segments: TranscriptSegment[];
}

/** A provider call that did not give a transcript: `retryable` for 429, 5xx and no answer; `retryAfterSeconds` from its Retry-After. */
export class TranscriptionProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null,
    readonly retryAfterSeconds: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TranscriptionProviderError';
  }
}

export interface TranscribeInput {
  /** The recording's bytes, read as they are sent. */
  audio: Readable;
  filename: string;
  contentType: string;
  /** ISO 639-1 to transcribe in; null lets the provider detect it. */
  language: string | null;
  signal?: AbortSignal;
}

export type Transcriber = ReturnType<typeof createTranscriber>;

export function createTranscriber(cfg: NonNullable<Config['transcription']>) {
  let sdk: Promise<{ openai: typeof import('openai'); client: import('openai').OpenAI }> | undefined;
  const loadSdk = () =>
    (sdk ??= import('openai').then((openai) => ({
      openai,
      client: new openai.OpenAI({
        baseURL: `${cfg.url}/v1`,
        // Self-hosted servers often need no key: then no Authorization header at all.
        apiKey: cfg.apiKey ?? 'none',
        ...(cfg.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
        maxRetries: 0,
        timeout: cfg.timeoutSeconds * 1000,
      }),
    })));
  return {
    async transcribe(input: TranscribeInput): Promise<Transcript> {
      const { openai, client } = await loadSdk();
      try {
        const res = await client.audio.transcriptions.create(
          {
            file: openai.toStreamingFile(input.audio, input.filename, { type: input.contentType }),
            model: cfg.model,
            response_format: 'verbose_json',
            timestamp_granularities: ['segment'],
            ...(input.language ? { language: input.language } : {}),
          },
          { signal: input.signal },
        );
        const body = res as unknown as { text?: unknown; language?: unknown; segments?: unknown };
        if (typeof body.text !== 'string') throw new TranscriptionProviderError('the provider answered without a text', false, null, null);
        const segments = Array.isArray(body.segments)
          ? body.segments
              .filter((s): s is { start: number; end: number; text: string } => typeof s?.start === 'number' && typeof s?.end === 'number' && typeof s?.text === 'string')
              .map((s) => ({ start: round(s.start), end: round(s.end), text: s.text.trim() }))
          : [];
        return { language: languageCode(body.language) ?? input.language, text: body.text.trim(), segments };
      } catch (err) {
        throw classify(openai, err, input.signal);
      }
    },
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

function classify({ APIError, APIConnectionError }: typeof import('openai'), err: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return err; // the worker stopped, or the lease lapsed: not the provider's failure
  if (err instanceof TranscriptionProviderError) return err;
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const message = providerMessage(err) ?? `the provider answered ${status}`;
    return new TranscriptionProviderError(`${status}: ${message}`.slice(0, 300), retryable, status, retryAfter(err.headers), { cause: err });
  }
  if (err instanceof APIConnectionError || err instanceof APIError) {
    return new TranscriptionProviderError(`no answer from the provider: ${(err as Error).message}`.slice(0, 300), true, null, null, { cause: err });
  }
  return err;
}

function providerMessage(err: APIError): string | null {
  const e = err.error as { message?: unknown } | undefined;
  return typeof e?.message === 'string' ? e.message : null;
}

/** Retry-After in seconds (delta-seconds or an HTTP date); retry-after-ms too, as OpenAI sends. */
function retryAfter(headers: Headers | undefined): number | null {
  const ms = headers?.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms) / 1000);
  const v = headers?.get('retry-after');
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** OpenAI's verbose_json says `"language": "english"`; others an ISO code. Stored as ISO 639-1 where known. */
const LANGUAGE_NAMES: Record<string, string> = {
  english: 'en', german: 'de', french: 'fr', spanish: 'es', italian: 'it', portuguese: 'pt', dutch: 'nl', polish: 'pl', russian: 'ru',
  ukrainian: 'uk', turkish: 'tr', arabic: 'ar', hebrew: 'he', hindi: 'hi', chinese: 'zh', japanese: 'ja', korean: 'ko', swedish: 'sv',
  danish: 'da', norwegian: 'no', finnish: 'fi', greek: 'el', czech: 'cs', hungarian: 'hu', romanian: 'ro', vietnamese: 'vi', thai: 'th',
  indonesian: 'id', malay: 'ms', persian: 'fa', urdu: 'ur', bengali: 'bn', tamil: 'ta', catalan: 'ca', welsh: 'cy', irish: 'ga',
};

export function languageCode(value: unknown): string | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  const v = value.trim().toLowerCase();
  const code = /^([a-z]{2,3})(?:[-_][a-z0-9]{2,8})?$/.exec(v);
  if (code) return code[1];
  return LANGUAGE_NAMES[v] ?? null;
}

/**
 * A video's audio track as a stream (ffmpeg reading the file, writing mono
 * 16 kHz MP3 to its stdout, what speech recognisers take): the provider gets only the sound, a fraction
 * of the video's bytes. `done` settles when ffmpeg exits (rejects on a
 * failure or no audio track); the stream ends with it.
 */
export async function extractAudioTrack(inputPath: string, options: MediaToolOptions): Promise<{ audio: Readable; done: Promise<void>; contentType: string; extension: string }> {
  const ffmpeg = await resolveTool('ffmpeg', options.config);
  const child = spawn(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', inputPath, '-vn', '-map', '0:a:0', '-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', '48k', '-f', 'mp3', 'pipe:1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: options.signal,
    windowsHide: true,
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString('utf8');
  });
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg could not take the audio track: ${stderr.trim().split('\n').pop() || `exit ${code}`}`))));
  });
  done.catch(() => {}); // observed by the caller; never an unhandled rejection
  return { audio: child.stdout, done, contentType: 'audio/mpeg', extension: 'mp3' };
}
