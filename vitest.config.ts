import { defineConfig } from 'vitest/config';
import { databaseIndependentGlobs } from './test/helpers/database-independent.js';
import HeavyFirstSequencer from './test/helpers/heavy-first-sequencer.js';

// npm test's PostgreSQL half (scripts/test.mjs) leaves out the files that never open a database:
// its PGlite half ran them already, and the backend cannot change their outcome.
const skipDatabaseIndependent = process.env.TEST_SKIP_DATABASE_INDEPENDENT === '1';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**', ...(skipDatabaseIndependent ? databaseIndependentGlobs() : [])],
    pool: 'forks',
    maxWorkers: 2,
    // Files of one worker run one after another in one process: modules are
    // imported once and the embedded database is started once per worker
    // (test/helpers/test-db.ts gives each file a schema of its own).
    isolate: false,
    setupFiles: ['test/helpers/per-file-setup.ts'],
    // The heaviest files start first, so the run does not end on one worker (test/helpers/heavy-first-sequencer.ts).
    sequence: { sequencer: HeavyFirstSequencer },
    restoreMocks: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
