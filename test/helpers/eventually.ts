/**
 * Polls until `ok(get())` holds, for effects the background worker brings
 * about; returns the last value. It looks again soon at first, then every
 * 100 ms, so a quick effect costs little and a slow one few queries.
 */
export async function eventually<T>(get: () => Promise<T>, ok: (v: T) => boolean = Boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 10; ; pause = Math.min(100, pause * 2)) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, pause));
  }
}
