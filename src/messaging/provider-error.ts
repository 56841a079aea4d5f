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
    return await fetch(url, { ...init, signal });
  } catch (err) {
    const why = timeout.aborted ? `no answer within ${TIMEOUT_MS / 1000} s` : init.signal?.aborted ? 'aborted' : 'could not connect';
    throw new ProviderError(provider, why, null, { cause: (err as Error)?.cause ?? undefined });
  }
}
