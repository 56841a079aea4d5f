import { inSpan, markSpanError, SpanKind } from '../lib/tracing.js';

/**
 * A provider refused or could not be reached. The message names the provider
 * and its answer, never the request URL or credentials (the Telegram bot
 * token is part of its URL), since job errors are stored and shown.
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly status: number | null = null,
    options: { cause?: unknown } = {},
  ) {
    super(`${provider}: ${message}`, options);
    this.name = 'ProviderError';
  }
}

const TIMEOUT_MS = 15_000;

/** fetch with a timeout, aborted with the job too; a network failure becomes a ProviderError without the URL. */
export async function providerFetch(provider: string, url: string, init: RequestInit & { signal?: AbortSignal }): Promise<Response> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  try {
    // A client span per call (tracing on): the provider and host, never the URL (Telegram's carries the bot token).
    const target = new URL(url);
    return await inSpan(
      init.method ?? 'GET',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': init.method ?? 'GET',
          'server.address': target.hostname,
          ...(target.port ? { 'server.port': Number(target.port) } : {}),
          'memorybook.provider': provider,
        },
      },
      async (span) => {
        const res = await fetch(url, { ...init, signal });
        span?.setAttribute('http.response.status_code', res.status);
        if (span && res.status >= 400) markSpanError(span, String(res.status));
        return res;
      },
    );
  } catch (err) {
    const why = timeout.aborted ? `no answer within ${TIMEOUT_MS / 1000} s` : init.signal?.aborted ? 'aborted' : 'could not connect';
    throw new ProviderError(provider, why, null, { cause: (err as Error)?.cause ?? undefined });
  }
}
