/** The one untyped call the helpers make through the typed client; their own signatures carry the types. */
export interface CallOptions {
  path?: object;
  query?: object;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface CallResult<T> {
  data: T;
  response: Response;
}

/** Calls the API; a 4xx or 5xx (after the transport's retries) is thrown as a MemorybookError. */
export type Call = <T>(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, options?: CallOptions) => Promise<CallResult<T>>;

/** Fetches a signed URL (media, artifacts): no credentials, no retries but the caller's own. */
export type FetchFile = (url: string, signal?: AbortSignal) => Promise<Response>;

export interface HelperContext {
  call: Call;
  fetchFile: FetchFile;
}
