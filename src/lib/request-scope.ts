import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Values remembered for the rest of one HTTP request (the book access the
 * early guard read, so the service's own check of it costs nothing more).
 * Outside a request (CLI, jobs) nothing is remembered.
 */
const scope = new AsyncLocalStorage<Map<string, unknown>>();

export function runInRequestScope<T>(fn: () => T): T {
  return scope.run(new Map(), fn);
}

export function remember(key: string, value: unknown): void {
  scope.getStore()?.set(key, value);
}

export function recall<T>(key: string): T | undefined {
  return scope.getStore()?.get(key) as T | undefined;
}
