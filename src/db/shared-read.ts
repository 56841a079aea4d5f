/**
 * Identical read-only queries asked at the same time share one execution:
 * the same text with the same parameters, asked in one event-loop turn, leaves
 * as one query at the end of the turn; asked while that query is out, it
 * waits for the next one, which leaves when the first has answered and
 * serves everyone who asked in between. A page many clients read at once (a
 * book's memories, an owner's books) then costs the database one execution
 * per round trip instead of one per request.
 *
 * A read only ever joins a query that has not been sent yet, so the snapshot
 * it reads is taken after it was asked for: it sees everything committed
 * before then, exactly as a query of its own would (the rule the batched
 * lookups follow too). Nothing is cached. The rows are shared: callers must
 * not change them. Outside a transaction only: a shared query runs on its
 * own, in nobody's transaction. A failure of a shared query reaches every
 * reader that shared it.
 *
 * What it pays (bench, PostgreSQL, 32 connections, sharing on in two runs vs
 * off in one, 2026-11-27, on a shared 2-core machine at load 11-14, so req/s
 * is noisy; database CPU per request is the steadier figure): books-list
 * 12-15% vs 5% of the ceiling, database CPU 79-83 vs 704 µs/req;
 * submissions-page-1 5-8% vs 2%, 157-162 vs 1055 µs/req.
 */
export function createSharedReads(run: <R>(text: string, params: unknown[]) => Promise<R[]>) {
  type Waiter = { resolve(rows: unknown[]): void; reject(err: unknown): void };
  /**
   * One entry per key with a query out or about to leave: `leaving` are the
   * readers of the query that is out (or leaves at the end of this turn, while
   * `next` is null); `next` collects who asked while it was out.
   */
  type Entry = { text: string; params: unknown[]; leaving: Waiter[]; next: Waiter[] | null; sentAt: number };
  const entries = new Map<string, Entry>();

  function send(key: string, entry: Entry) {
    const waiters = entry.leaving;
    entry.sentAt = performance.now();
    runSafely(entry.text, entry.params).then(
      (rows) => {
        for (const w of waiters) w.resolve(rows);
        settle(key, entry);
      },
      (err) => {
        for (const w of waiters) w.reject(err);
        settle(key, entry);
      },
    );
  }

  function settle(key: string, entry: Entry) {
    if (entry.next && entry.next.length > 0) {
      // Everyone in `next` asked before now: their query leaves at once.
      entry.leaving = entry.next;
      entry.next = [];
      send(key, entry);
    } else {
      entries.delete(key);
    }
  }

  /** A query function that throws before it returns a promise fails its readers, never the process. */
  function runSafely<R>(text: string, params: unknown[]): Promise<R[]> {
    try {
      return run<R>(text, params);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  return function sharedRead<R>(text: string, params: unknown[]): Promise<R[]> {
    const key = keyOf(text, params);
    if (key === null) return runSafely<R>(text, params);
    return new Promise<R[]>((resolve, reject) => {
      const waiter = { resolve: resolve as (rows: unknown[]) => void, reject };
      const entry = entries.get(key);
      if (!entry) {
        const fresh: Entry = { text, params, leaving: [waiter], next: null, sentAt: 0 };
        entries.set(key, fresh);
        // Leaves at the end of the turn, so the reads asked in this turn go with it.
        defer(() => {
          fresh.next = [];
          send(key, fresh);
        });
      } else if (entry.next === null) {
        entry.leaving.push(waiter); // not sent yet
      } else if (performance.now() - entry.sentAt > WAIT_BEHIND_LIMIT_MS) {
        // The query out is slow or stuck (a dead connection): read alone rather than queue behind it.
        runSafely<R>(text, params).then(resolve, reject);
      } else {
        entry.next.push(waiter); // one is out: wait for the next
      }
    });
  };
}

/**
 * A query out longer than this is not waited for: later readers go alone, as
 * they would without sharing. A page read takes milliseconds; this is for the
 * one that hangs (a connection dead without a word), so that it holds up only
 * its own readers.
 */
const WAIT_BEHIND_LIMIT_MS = 1000;

/** Equal for the same text and parameters; null for parameters JSON cannot tell apart (a bigint): those read alone. */
function keyOf(text: string, params: unknown[]): string | null {
  try {
    return `${text}\u0000${JSON.stringify(params)}`;
  } catch {
    return null;
  }
}

// Taken at load, so a test that later installs fake timers cannot stall a read.
const defer = globalThis.setImmediate;
