import type { FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/pg-errors.js';
import { AppError, errors } from '../errors.js';
import { dependencyUnavailable } from '../metrics/metrics.js';
import type { PluginHeaders } from './header-declarations.js';

/** What an outage adds to every API route: 503 service_unavailable, with Retry-After (a dependency down, or the database busy). */
export const OUTAGE_HEADERS: PluginHeaders = { plugin: 'outage', wraps: () => true, headers: { retryAfter: [503] } };

/**
 * The answer for an error that means a dependency is down (503 with
 * Retry-After), or undefined for any other: an AppError that names its
 * dependency (the Db, the store and the mailer raise those), or a lost
 * database connection that reached the handler without passing the Db.
 */
export function outageOf(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err.dependency ? err : undefined;
  return isDatabaseUnavailable(err, false) ? errors.dependencyDown('database', err) : undefined;
}

/** An outage answered: counted per dependency and logged at warn naming it (never at error as unhandled: it is not a bug). */
export function noteOutage(request: FastifyRequest, err: AppError): void {
  const dependency = err.dependency ?? 'database';
  dependencyUnavailable.inc({ dependency, where: 'http' });
  const cause = err.cause as { message?: string; code?: string } | undefined;
  request.log.warn(
    { dependency, request_id: request.id, cause: cause ? { message: cause.message, code: cause.code } : undefined },
    `${dependency} unavailable; answered 503 with Retry-After`,
  );
}
