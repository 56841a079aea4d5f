/**
 * A service whose every member answers a promise: only such a service can be
 * called before its module has loaded (a member that answers a value, or a
 * value, makes the type check fail at the lazyService call).
 */
type AsyncMembers<T> = { [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? T[K] : never };

/**
 * A service made on first use: `make` imports its module and builds it the
 * first time one of its members is called, so a process loads only the
 * services it uses, when it first uses them (the start loads none of them).
 * Until then a member is a function that waits for the service and calls it
 * (and, kept, calls it directly once it is made); once it is made, a member
 * is the service's own (bound), so a hot path pays one property lookup, not
 * a promise. A service that fails to load is tried
 * again on the next call.
 */
export function lazyService<T extends AsyncMembers<T>>(make: () => Promise<T>): T {
  let service: T | undefined;
  let making: Promise<T> | undefined;
  const load = () =>
    (making ??= make().then(
      (made) => (service = made),
      (err: unknown) => {
        making = undefined;
        throw err;
      },
    ));
  const members = new Map<string, unknown>();
  return new Proxy({} as T, {
    get(_target, key) {
      // Not a thenable (an async function may return the service), and no symbols: only the service's own names.
      if (typeof key !== 'string' || key === 'then') return undefined;
      let member = members.get(key);
      if (member) return member;
      if (service) {
        const own = service[key as keyof T] as unknown;
        member = typeof own === 'function' ? own.bind(service) : own;
      } else {
        // Kept by a caller (a hook handed the member at build time), it calls the service directly once it is made.
        const call = (s: T, args: unknown[]) => (s[key as keyof T] as (...a: unknown[]) => Promise<unknown>)(...args);
        const deferred = (...args: unknown[]) => (service ? call(service, args) : load().then((s) => call(s, args)));
        return deferred;
      }
      members.set(key, member);
      return member;
    },
  });
}
