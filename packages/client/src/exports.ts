import type { HelperContext } from './call.js';
import { ExportFailedError, MemorybookApiError, WaitTimeoutError } from './errors.js';
import { sleep } from './transport.js';
import type { BodyOf, ResponseOf } from './types.js';

/** An export job: `pending` → `processing` → `complete` or `failed`. */
export type ExportJob = ResponseOf<'/api/v1/books/{slug}/exports/{job_id}/', 'get'>;
/** What `POST /books/{slug}/exports/` takes: `theme`, and optionally `intent` and `export_format`. */
export type ExportRequest = BodyOf<'/api/v1/books/{slug}/exports/', 'post'>;
/** The artifact's signed URL (15 minutes) and when it lapses. */
export type ExportArtifact = ResponseOf<'/api/v1/books/{slug}/exports/{job_id}/artifact/', 'get'>;

export interface ExportWaitOptions {
  /** Give up after this long (default 10 minutes): WaitTimeoutError. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Book exports: request one, poll it, fetch the artifact. The artifact's
 * `502 storage_unavailable` (the URL could not be signed for a moment) is
 * retried by the client's transport at 1, 2, 4 and 8 s (capped at 60 s).
 */
export function createExportHelpers({ call, fetchFile }: HelperContext) {
  const jobPath = (slug: string, jobId: string) => ({ path: { slug, job_id: jobId } });

  const helpers = {
    /** Requests an export (202): the job, `pending` until a worker takes it. */
    async request(slug: string, body: ExportRequest, options: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<ExportJob> {
      return (
        await call<ExportJob>('post', '/api/v1/books/{slug}/exports/', {
          path: { slug },
          body,
          headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : undefined,
          signal: options.signal,
        })
      ).data;
    },

    async get(slug: string, jobId: string, options: { signal?: AbortSignal } = {}): Promise<ExportJob> {
      return (await call<ExportJob>('get', '/api/v1/books/{slug}/exports/{job_id}/', { ...jobPath(slug, jobId), signal: options.signal })).data;
    },

    /** Polls until the job is `complete` (ExportFailedError when it ends `failed`). */
    async wait(slug: string, jobId: string, options: ExportWaitOptions = {}): Promise<ExportJob> {
      const deadline = Date.now() + (options.timeoutMs ?? 600_000);
      for (let pause = 500; ; pause = Math.min(5000, pause * 2)) {
        const job = await helpers.get(slug, jobId, options);
        const { status } = job;
        if (status === 'complete') return job;
        if (status === 'failed') throw new ExportFailedError(job);
        if (Date.now() + pause > deadline) throw new WaitTimeoutError(`export ${jobId} is still ${status}`);
        await sleep(pause, options.signal);
      }
    },

    /** The artifact's signed URL. A job not finished yet is `409 export_not_ready`; a failed or expired one `410 export_failed`. */
    async artifact(slug: string, jobId: string, options: { signal?: AbortSignal } = {}): Promise<ExportArtifact> {
      return (await call<ExportArtifact>('get', '/api/v1/books/{slug}/exports/{job_id}/artifact/', { ...jobPath(slug, jobId), signal: options.signal })).data;
    },

    /** Fetches the artifact's bytes; a URL that lapsed on the way is asked for again once. */
    async download(slug: string, jobId: string, options: { signal?: AbortSignal } = {}): Promise<Response> {
      let res = await fetchFile((await helpers.artifact(slug, jobId, options)).download_url, options.signal);
      if (res.status === 403) {
        await res.body?.cancel().catch(() => {});
        res = await fetchFile((await helpers.artifact(slug, jobId, options)).download_url, options.signal);
      }
      if (!res.ok) throw new MemorybookApiError(res, await res.json().catch(() => null));
      return res;
    },

    /** Request, wait, and answer the finished job with its artifact's URL. */
    async run(slug: string, body: ExportRequest, options: ExportWaitOptions & { idempotencyKey?: string } = {}): Promise<{ job: ExportJob; artifact: ExportArtifact }> {
      const requested = await helpers.request(slug, body, options);
      const job = await helpers.wait(slug, requested.id, options);
      return { job, artifact: await helpers.artifact(slug, requested.id, options) };
    },
  };
  return helpers;
}
export type ExportHelpers = ReturnType<typeof createExportHelpers>;
