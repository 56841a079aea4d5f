/**
 * Values remembered for the rest of one HTTP request (the book access the
 * early guard read, so the service's own check of it costs nothing more).
 * Outside a request (CLI, jobs) nothing is remembered.
 *
 * A request's scope hangs off its actor: the user object authentication made
 * for this request alone (request.auth.user), which every service call of
 * the request is handed. No AsyncLocalStorage: on Node 20, one store entered
 * anywhere turns on async hooks for every promise of the process, a cost
 * every request paid (issue 44). The scope goes when the actor object does.
 */
const scopes = new WeakMap<object, Map<string, unknown>>();

/** Opens the request's scope on its actor (a fresh object per request; called by authentication). */
export function openRequestScope(actor: object): void {
  scopes.set(actor, new Map());
}

export function remember(actor: object | null, key: string, value: unknown): void {
  if (actor) scopes.get(actor)?.set(key, value);
}

export function recall<T>(actor: object | null, key: string): T | undefined {
  return actor ? (scopes.get(actor)?.get(key) as T | undefined) : undefined;
}
