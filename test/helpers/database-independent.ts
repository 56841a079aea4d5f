/**
 * Test files that never open a database, so their outcome cannot depend on
 * the backend: `npm test` runs them once, in its PGlite half, and leaves them
 * out of its PostgreSQL half (scripts/test.mjs sets
 * TEST_SKIP_DATABASE_INDEPENDENT=1 there; vitest.config.ts reads it). A
 * targeted `npx vitest run <file>` still runs them on either backend.
 *
 * An entry ending in `/` is every test file under that folder, any other entry
 * one file. per-file-setup.ts holds each listed file to it: asking for a test
 * database, connecting a pg client or starting PGlite throws. A file that
 * builds an app, spawns a server or otherwise reaches a database, even
 * through a child process, does not belong here.
 */
export const DATABASE_INDEPENDENT: readonly string[] = [
  // PDF composition and read-backs: fonts, pages and pictures, no rows.
  'src/exports/',
  'test/exports/pdf/',
  // Pure domain functions.
  'src/services/submissions/moderation.test.ts',
  'src/services/submissions/notifications.test.ts',
  // Mail parsing and its corpora, and the SMTP client against a local server.
  'test/mail/mailer.test.ts',
  'test/mail/own-words.corpus.test.ts',
  'test/mail/own-words.test.ts',
  'test/mail/verdict-headers.test.ts',
  // ffmpeg, sharp, clamd, face detection and fonts on files.
  'test/media-tools/',
  // eslint and dependency-cruiser on scratch folders; the configuration table.
  'test/lint/',
  'test/cli/config-docs.test.ts',
  'test/lib/',
  // Deprecation headers on a bare Fastify with the served document's error schemas.
  'test/http/spine/deprecation.test.ts',
];

/** Whether a test file (its path from the repository root, `/`-separated) is on the list. */
export function isDatabaseIndependent(file: string): boolean {
  return DATABASE_INDEPENDENT.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));
}

/** The list as vitest include/exclude globs. */
export function databaseIndependentGlobs(): string[] {
  return DATABASE_INDEPENDENT.map((entry) => (entry.endsWith('/') ? `${entry}**/*.test.ts` : entry));
}
