import { defineConfig } from 'vitest/config';

// Real-browser tests: a real server on a socket and Debian's Chromium driven by playwright-core.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
