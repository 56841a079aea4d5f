import createClient, { type Client } from 'openapi-fetch';
import type { Call, CallOptions, CallResult, FetchFile } from './call.js';
import { MemorybookConnectionError, MemorybookError, ok } from './errors.js';
import { createExportHelpers, type ExportHelpers } from './exports.js';
import { createMediaHelpers, type MediaHelpers } from './media.js';
import { createMeHelpers, type MeHelpers } from './me.js';
import { createCoverHelpers, type CoverHelpers } from './cover.js';
import { createTransport, type TransportOptions } from './transport.js';
import type { BodyOf, LegacyListArgs, ListArgs, ListArgsParam, ListItem, ListPath, Page, PathParamsOf, paths, ResponseOf, SyncPath, UpdatablePath } from './types.js';

interface CommonOptions extends Omit<TransportOptions, 'fetch'> {
  /** Where the service runs, e.g. `http://localhost:8000` (the paths carry `/api/v1`). */
  baseUrl: string;
  /** More headers for every call. */
  headers?: Record<string, string>;
}

/**
 * An API key, or a `fetch` of your own that authenticates the calls itself
 * (a proxy that adds the key, a test double): one of the two is required.
 */
export type MemorybookClientOptions = CommonOptions &
  (
    | {
        /** An API key (`svc_live_…`), sent as `Authorization: Bearer`. */
        apiKey: string;
        /** The fetch to call (default: globalThis.fetch). */
        fetch?: TransportOptions['fetch'];
      }
    | {
        apiKey?: undefined;
        /** The fetch to call, which sends the credentials itself. */
        fetch: NonNullable<TransportOptions['fetch']>;
      }
  );

export type SyncArgs<P extends SyncPath> = (ListArgs<P> | LegacyListArgs<P>) & {
  /** The `since` of the previous sync (its Last-Modified); none for the first, which reads every row. */
  since?: string | null;
};

export interface SyncResult<I> {
  /** The rows changed since `since` (every row on a first sync). A row may come twice over two syncs, never be missed. */
  items: I[];
  /** Keep it and pass it as `since` next time: the server's Last-Modified, not your clock. */
  since: string;
}

export interface UpdateOptions {
  /** Reads and tries again on 412 precondition_failed this many times in all (default 3). */
  attempts?: number;
  signal?: AbortSignal;
}

type UpdateArgs<P extends UpdatablePath> = (
  | ([PathParamsOf<P>] extends [never] ? { params?: { path?: undefined } } : { params: { path: PathParamsOf<P> } })
  | ([PathParamsOf<P>] extends [never]
      ? {
          /** @deprecated Pass `params: { path }`, as with `mb.GET`. */
          path?: undefined;
        }
      : {
          /** @deprecated Pass `params: { path }`, as with `mb.GET`. */
          path: PathParamsOf<P>;
        })
) & { signal?: AbortSignal };

/** Both shapes of a helper's arguments, read as one: `params.path` (as with `mb.GET`), or the earlier `path`. */
type AnyArgs = { params?: { path?: object; query?: object }; path?: object; query?: object; signal?: AbortSignal };
const pathOf = (args: AnyArgs | undefined) => args?.params?.path ?? args?.path;
const queryOf = (args: AnyArgs | undefined) => args?.params?.query ?? args?.query;

/**
 * The typed client: openapi-fetch's `GET`, `POST`, `PATCH`, `DELETE` over
 * every path in the document (they answer `{data, error, response}`; `ok()`
 * turns that into the data or a thrown MemorybookError), plus the helpers
 * below, which throw MemorybookError themselves.
 */
export interface MemorybookClient extends Client<paths> {
  readonly baseUrl: string;
  /** Every page of a list, following `next_cursor` until `has_more` is false. */
  pages<P extends ListPath>(path: P, ...args: ListArgsParam<P>): AsyncGenerator<Page<ListItem<P>>, void, undefined>;
  /** Every row of a list, page after page: `for await (const s of mb.items(…))`. */
  items<P extends ListPath>(path: P, ...args: ListArgsParam<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /**
   * The rows changed since the previous sync: lists with `updated_since`
   * pinned to the `since` it answered last time (the server's Last-Modified).
   */
  sync<P extends SyncPath>(path: P, args: SyncArgs<P>): Promise<SyncResult<ListItem<P>>>;
  /**
   * Read, change, write with If-Match: `change` gets the current resource and
   * answers the patch. When someone else wrote in between (412
   * precondition_failed) it reads again and calls `change` again.
   */
  update<P extends UpdatablePath>(
    path: P,
    args: UpdateArgs<P>,
    change: (current: ResponseOf<P, 'get'>) => BodyOf<P, 'patch'> | Promise<BodyOf<P, 'patch'>>,
    options?: UpdateOptions,
  ): Promise<ResponseOf<P, 'patch'>>;
  /** Upload, processing, fresh URLs and downloads of media files. */
  readonly media: MediaHelpers;
  /** A book's cover: upload one (PUT), or return to the automatic choice (DELETE). */
  readonly cover: CoverHelpers;
  /** Book exports: request, poll, artifact. */
  readonly exports: ExportHelpers;
  /** Your own memberships, memories and subscriptions across books, as async iterators over every page. */
  readonly me: MeHelpers;
}

/**
 * A client for one service and one credential:
 *
 *     const mb = createMemorybookClient({ baseUrl: 'http://localhost:8000', apiKey: process.env.MEMORYBOOK_KEY! });
 *     const me = ok(await mb.GET('/api/v1/auth/me/'));
 */
export function createMemorybookClient(options: MemorybookClientOptions): MemorybookClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  const api = createClient<paths>({ baseUrl, headers, fetch: createTransport(options) });
  const baseFetch = options.fetch ?? ((input: Request, init?: RequestInit) => globalThis.fetch(input, init));

  const call: Call = async <T>(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, o: CallOptions = {}) => {
    const result = await api.request(method, path as never, {
      params: { path: o.path, query: o.query },
      body: o.body,
      headers: o.headers,
      signal: o.signal,
    } as never);
    return { data: ok(result as { data?: unknown; error?: unknown; response: Response }) as T, response: result.response };
  };
  // Signed URLs carry their own authorisation; the API key is not sent along (they may point at another host).
  const fetchFile: FetchFile = async (url, signal) => {
    const request = new Request(new URL(url, baseUrl), { signal });
    try {
      return await baseFetch(request);
    } catch (err) {
      if (signal?.aborted || !(err instanceof TypeError)) throw err;
      const { origin, pathname } = new URL(request.url);
      throw new MemorybookConnectionError('connection_failed', 'GET', origin + pathname, 1, err);
    }
  };

  type RawPage = { items: unknown[]; next_cursor: string | null; has_more: boolean };
  async function* pages(path: string, args: AnyArgs | undefined, since?: string | null): AsyncGenerator<Page<unknown>, void, undefined> {
    let cursor: string | null = null;
    for (;;) {
      const query: Record<string, unknown> = { ...queryOf(args), ...(since ? { updated_since: since } : {}), ...(cursor ? { cursor } : {}) };
      const { data, response }: CallResult<RawPage> = await call<RawPage>('get', path, {
        path: pathOf(args),
        query,
        signal: args?.signal,
      });
      yield { ...data, lastModified: response.headers.get('last-modified') };
      if (!data.has_more || !data.next_cursor) return;
      cursor = data.next_cursor;
    }
  }

  const helpers = {
    baseUrl,
    pages: (path: string, args?: AnyArgs) => pages(path, args),
    async *items(path: string, args?: AnyArgs) {
      for await (const page of pages(path, args)) yield* page.items;
    },
    async sync(path: string, args: AnyArgs & { since?: string | null }) {
      const items: unknown[] = [];
      // The earliest watermark of the pages (the first page's): rows that commit while we page are after it.
      let watermark: { at: number; value: string } | null = null;
      for await (const page of pages(path, args, args.since)) {
        items.push(...page.items);
        const at = page.lastModified ? Date.parse(page.lastModified) : NaN;
        if (!Number.isNaN(at) && (!watermark || at < watermark.at)) watermark = { at, value: page.lastModified! };
      }
      if (!watermark) throw new Error(`${path} answered no Last-Modified header: it cannot be synced`);
      return { items, since: watermark.value };
    },
    async update(path: string, args: AnyArgs, change: (current: any) => unknown, o: UpdateOptions = {}) {
      const attempts = o.attempts ?? 3;
      const signal = o.signal ?? args.signal;
      for (let attempt = 1; ; attempt++) {
        const { data: current, response } = await call<{ etag?: string }>('get', path, { path: pathOf(args), signal });
        const etag = current.etag ?? response.headers.get('etag');
        const body = await change(current);
        try {
          return (await call('patch', path, { path: pathOf(args), body, headers: etag ? { 'If-Match': etag } : undefined, signal })).data;
        } catch (err) {
          if (!MemorybookError.is(err, 'precondition_failed') || attempt >= attempts) throw err;
        }
      }
    },
    media: createMediaHelpers({ call, fetchFile }),
    cover: createCoverHelpers({ call, fetchFile }),
    exports: createExportHelpers({ call, fetchFile }),
  };
  const withMe = { ...helpers, me: createMeHelpers(helpers.items) };
  return Object.assign(api, withMe) as unknown as MemorybookClient;
}
