import { AppError, errors } from '../errors.js';

/** SQLSTATEs the API can explain; anything else stays a 500 (see the PostgreSQL manual, appendix A). */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const CHECK_VIOLATION = '23514';
const QUERY_CANCELED = '57014'; // statement_timeout, or cancelled by an operator
const LOCK_NOT_AVAILABLE = '55P03'; // lock_timeout, NOWAIT
const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const INVALID_TEXT_REPRESENTATION = '22P02';
const CHARACTER_NOT_IN_REPERTOIRE = '22021'; // bad UTF-8
const UNTRANSLATABLE_CHARACTER = '22P05';

const RETRYABLE_TRANSACTION_ERRORS = new Set([SERIALIZATION_FAILURE, DEADLOCK_DETECTED]);
const BUSY = new Set([QUERY_CANCELED, LOCK_NOT_AVAILABLE, SERIALIZATION_FAILURE, DEADLOCK_DETECTED]);
const BAD_VALUE = new Set([INVALID_TEXT_REPRESENTATION, CHARACTER_NOT_IN_REPERTOIRE, UNTRANSLATABLE_CHARACTER]);

/**
 * SQLSTATE classes that mean the database itself is out of reach or out of
 * room, not that the statement is wrong: 08 connection exception, 57P
 * operator intervention (admin_shutdown, crash_shutdown, cannot_connect_now,
 * database_dropped, idle_session_timeout), 53 insufficient resources
 * (disk_full, out_of_memory, too_many_connections).
 */
const UNAVAILABLE_CLASSES = /^(08|57P|53)/;

/** Socket errors of a connection to the database (node's errno codes). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/** What node-postgres says, without a SQLSTATE, when the connection is gone or cannot be made. */
const LOST_CONNECTION_MESSAGE =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection ended|The server does not support SSL connections)$/;

/**
 * A database that is down, restarting, out of room or cut off: its SQLSTATE
 * class, or (for an error the Db raised, `fromDb`) a socket error or
 * node-postgres's own words for a lost connection.
 */
export function isDatabaseUnavailable(err: unknown, fromDb: boolean): boolean {
  const code = pgErrorCode(err);
  if (code) return UNAVAILABLE_CLASSES.test(code);
  if (!fromDb || !(err instanceof Error)) return false;
  const errno = (err as { code?: unknown }).code;
  if (typeof errno === 'string' && NETWORK_CODES.has(errno)) return true;
  if (err instanceof AggregateError) return err.errors.some((e) => isDatabaseUnavailable(e, true));
  return LOST_CONNECTION_MESSAGE.test(err.message);
}

/** A transaction that failed only because of other transactions: running it again may well succeed. */
export function isRetryableTransactionError(err: unknown): boolean {
  return RETRYABLE_TRANSACTION_ERRORS.has(pgErrorCode(err) ?? '');
}

/**
 * Unique constraints whose violation has its own answer in the contract;
 * every other one is a plain 409 conflict.
 */
const CONSTRAINT_ERRORS: Record<string, (err: unknown) => AppError> = {
  api_tokens_user_name_key: (err) => errors.nameTaken('You already have an API token with this name.', { field: 'name' }, { cause: err }),
  users_email_key: (err) => errors.conflict('An account with this email already exists.', { field: 'email' }, { cause: err }),
};

/**
 * The answer for a database error a service did not handle itself, or
 * undefined for one that is our fault (a 500). Only a constraint's name goes
 * out, never the database's message: it quotes the row's values (`Key
 * (email)=(…) already exists`).
 */
export function translatePgError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err; // translated already (the Db translates what it raises)
  const code = pgErrorCode(err);
  if (!code) return undefined;
  const constraint = constraintOf(err);
  if (code === UNIQUE_VIOLATION) {
    const specific = constraint ? CONSTRAINT_ERRORS[constraint] : undefined;
    if (specific) return specific(err);
    return errors.conflict('This conflicts with something that already exists.', constraint ? { constraint } : null, { cause: err });
  }
  if (code === FOREIGN_KEY_VIOLATION) {
    return errors.conflict('This refers to something that does not exist, or is still referred to.', constraint ? { constraint } : null, { cause: err });
  }
  if (BUSY.has(code)) {
    return errors.serviceUnavailable('The service is busy; retry after the time in the Retry-After header.', null, {
      headers: { 'retry-after': '1' },
      cause: err,
    });
  }
  if (code === CHECK_VIOLATION) {
    return errors.validation('A value is not allowed here.', constraint ? { constraint } : null, { cause: err });
  }
  if (BAD_VALUE.has(code)) return errors.validation('A value is not valid for its field.', null, { cause: err });
  if (UNAVAILABLE_CLASSES.test(code)) return errors.dependencyDown('database', err);
  return undefined;
}

/** translatePgError for an error the Db itself raised: a lost or refused connection is the database being down too. */
export function translateDbError(err: unknown): AppError | undefined {
  return translatePgError(err) ?? (isDatabaseUnavailable(err, true) ? errors.dependencyDown('database', err) : undefined);
}

/** The SQLSTATE of a pg or PGlite error (of its cause, for one already translated). */
export function pgErrorCode(err: unknown): string | undefined {
  if (err instanceof AppError) return pgErrorCode(err.cause);
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

function constraintOf(err: unknown): string | undefined {
  const constraint = (err as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' && constraint ? constraint : undefined;
}
