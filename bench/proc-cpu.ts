/** CPU time and memory of processes, read from /proc (Linux only): what the benches report. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every mainstream Linux

/**
 * CPU time of every PostgreSQL server process on this machine, by pid, in ms
 * (Linux only; null elsewhere): the database's share of a request when the
 * service runs on PostgreSQL. Other users of the server during a run count
 * too, and a backend that exits during one takes its count with it.
 */
export function postgresCpuMs(): Map<number, number> | null {
  if (process.platform !== 'linux') return null;
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byPid.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND);
    } catch {
      // gone between the listing and the read
    }
  }
  return byPid;
}

/** CPU used between two readings of postgresCpuMs, by the processes alive at the second (new ones from zero). */
export function postgresCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** A process's VmRSS or VmHWM in bytes (Linux). */
export function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} for ${pid}`);
  return Number(m[1]) * 1024;
}

/**
 * Watches a process's peak RSS from now: resets its high-water mark (VmHWM,
 * through clear_refs) where the kernel allows, and samples VmRSS every
 * `sampleMs` besides. `stop()` ends the sampling and answers the peak in bytes
 * and how it was measured (asked again, the same answer).
 */
export function watchPeakRss(pid: number, sampleMs = 20): { before: number; stop(): { peak: number; measuredBy: 'VmHWM' | 'VmRSS samples' } } {
  let hwm = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwm = false;
  }
  const before = procStatus(pid, 'VmRSS');
  let peak = before;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, procStatus(pid, 'VmRSS'));
    } catch {
      /* exited */
    }
  }, sampleMs);
  let result: { peak: number; measuredBy: 'VmHWM' | 'VmRSS samples' } | undefined;
  return {
    before,
    stop() {
      if (result) return result;
      clearInterval(sampler);
      try {
        peak = Math.max(peak, procStatus(pid, 'VmRSS'));
        if (hwm) peak = Math.max(peak, procStatus(pid, 'VmHWM'));
      } catch {
        /* exited */
      }
      return (result = { peak, measuredBy: hwm ? 'VmHWM' : 'VmRSS samples' });
    },
  };
}

/** Waits until the process has used (almost) no CPU for half a second, or the timeout passes. */
export async function settle(pid: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = processCpuMs(pid) ?? 0;
    await new Promise((r) => setTimeout(r, 500));
    if ((processCpuMs(pid) ?? 0) - before <= 20 || Date.now() > deadline) return;
  }
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

