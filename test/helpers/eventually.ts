/** Polls until `ok(get())` holds, for effects the background worker brings about; returns the last value. */
export async function eventually<T>(get: () => Promise<T>, ok: (v: T) => boolean = Boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
