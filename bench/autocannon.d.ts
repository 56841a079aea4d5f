// autocannon ships no types; only the parts the benches use are declared.
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    workers?: number;
    /** Each request made from these (setupRequest may change its path, headers or body). */
    requests?: { setupRequest?: (req: { path?: string; headers?: Record<string, string> }) => { path?: string; headers?: Record<string, string> } }[];
    /** Requests per second over all connections (paced); unset: as fast as answers come. */
    overallRate?: number;
    /** Called once per connection before it starts. */
    setupClient?: (client: { setHeaders(headers: Record<string, string>): void }) => void;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats?: Record<string, { count: number }>;
  }
  /** Without a callback it returns a thenable event emitter. */
  function autocannon(opts: Options): PromiseLike<Result> & {
    stop(): void;
    /** Every answer as it arrives: its status and its latency in ms. */
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
  };
  export default autocannon;
  export type { Options, Result };
}
