import { PerformanceObserver, constants } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { streamed } from '../../src/lib/stream-garbage.js';

/** The young-generation collections V8 reports while fn runs (and just after). */
async function minorCollectionsDuring(fn: () => void): Promise<number> {
  let minor = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++;
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    fn();
    await new Promise((resolve) => setTimeout(resolve, 50)); // entries are delivered asynchronously
  } finally {
    observer.disconnect();
  }
  return minor;
}

describe('stream garbage', () => {
  it('every 8 MB streamed (across streams) collects the young generation, freeing the dead read buffers', async () => {
    expect(await minorCollectionsDuring(() => streamed(8 * 1024 * 1024))).toBeGreaterThanOrEqual(1);
    // Counted across calls: 64 KiB reads add up to the same.
    expect(await minorCollectionsDuring(() => { for (let i = 0; i < 128; i++) streamed(64 * 1024); })).toBeGreaterThanOrEqual(1);
  });

  it("leaves no gc function behind for other code: not global, not in new contexts", () => {
    streamed(8 * 1024 * 1024);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
