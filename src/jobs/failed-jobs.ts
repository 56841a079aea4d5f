import { Value } from '@sinclair/typebox/value';
import type { Config } from '../config/config.js';
import type { Queryable } from '../db/client.js';
import { bossTables } from './boss-db.js';
import { jobSpecs, type JobSpec } from './job-catalog.js';
import { configuredQueueSchema } from './queue.js';

/** A job pg-boss gave up on, as `memorybook jobs failed` prints it. */
export interface FailedJob {
  id: string;
  name: string;
  /** When the last attempt failed (ISO 8601). */
  failed_at: string;
  attempts: number;
  /** The last error's message. */
  error: string | null;
  /** What the job definition lets an operator see of its payload (see `summarize`); null when nothing. */
  payload: Record<string, unknown> | null;
  /** Moved to pg-boss's archive table (12 hours after failing); still listed until pg-boss drops it (7 days later). */
  archived: boolean;
}


/**
 * Jobs given up for good, newest first, from pg-boss's job and archive
 * tables. Empty when the queue was never installed in this database.
 */
export async function listFailedJobs(
  db: Queryable,
  config: Config,
  options: { name?: string; limit?: number; schema?: string; jobs?: readonly JobSpec[] } = {},
): Promise<FailedJob[]> {
  const schema = options.schema ?? configuredQueueSchema(config);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RangeError('limit must be a whole number from 1 to 1000');
  const tables = bossTables(schema);
  if (!(await tables.installed(db))) return [];
  const rows = await tables.failedJobs(db, { name: options.name ?? null, limit });
  const definitions = new Map((options.jobs ?? jobSpecs).map((j) => [j.name, j]));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    failed_at: r.completed_on,
    attempts: r.retry_count + 1,
    error: errorMessage(r.output),
    payload: summary(definitions.get(r.name), r.data),
    archived: r.archived,
  }));
}

/** Our handlers store {message, …}; pg-boss's own failures (an expired lease, a shutdown) store {value: …}. */
function errorMessage(output: unknown): string | null {
  const o = output as { message?: unknown; value?: unknown } | null;
  if (typeof o?.message === 'string') return o.message;
  if (typeof o?.value === 'string') return o.value;
  const inner = (o?.value as { message?: unknown } | undefined)?.message;
  return typeof inner === 'string' ? inner : null;
}

function summary(definition: JobSpec | undefined, data: unknown): Record<string, unknown> | null {
  // A payload stored under an older schema shows nothing rather than something misread.
  if (!definition?.summarize || !Value.Check(definition.payload, data)) return null;
  return definition.summarize(data);
}
