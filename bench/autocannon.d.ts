// autocannon ships no types; only the parts bench/run.ts uses are declared.
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
  function autocannon(opts: Options): PromiseLike<Result> & { stop(): void };
  export default autocannon;
  export type { Options, Result };
}
