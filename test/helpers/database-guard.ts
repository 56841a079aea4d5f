import pg from 'pg';

const FORBIDDEN = Symbol.for('memorybook.test.databaseForbidden');

/** The file that may not open a database now (per-file-setup.ts sets it for a database-independent file), if any. */
export function databaseForbiddenFor(): string | undefined {
  return (globalThis as Record<symbol, string | undefined>)[FORBIDDEN];
}

/** Why a database-independent file may not open a database: the error every way of opening one throws. */
export function databaseForbiddenError(file: string): Error {
  return new Error(
    `${file} is listed as database-independent (test/helpers/database-independent.ts), so npm test runs it on PGlite only, ` +
      'but it opened a database: take it off the list.',
  );
}

/**
 * Makes every way of opening a database throw while `file` runs: the test
 * database helper, a pg client (a pool connects through one, on either
 * backend) and PGlite itself. Returns what undoes it.
 */
export async function forbidDatabases(file: string): Promise<() => void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const refuse = () => Promise.reject(databaseForbiddenError(file));
  const undo = [
    shadow(pg.Client.prototype, 'connect', refuse),
    shadow(PGlite, 'create', refuse),
    shadow(PGlite.prototype, 'exec', refuse),
    shadow(PGlite.prototype, 'query', refuse),
  ];
  (globalThis as Record<symbol, string | undefined>)[FORBIDDEN] = file;
  return () => {
    for (const restore of undo) restore();
    delete (globalThis as Record<symbol, string | undefined>)[FORBIDDEN];
  };
}

/** Sets `key` of `target` (inherited or its own) to `value`, and returns what puts back what was there. */
function shadow(target: object, key: string, value: unknown): () => void {
  const own = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
  return () => {
    if (own) Object.defineProperty(target, key, own);
    else delete (target as Record<string, unknown>)[key];
  };
}
