// `npm run lint`: typescript-eslint's recommended rules over the sources, tests,
// bench and scripts. Layer and cycle rules live in .dependency-cruiser.cjs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'packages/client/dist/**', 'packages/client/src/generated/**', 'data/**', 'bench/results/**'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,mjs}', 'packages/client/src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
    },
    rules: {
      // The sources match control characters on purpose: to refuse them in names, headers and file names.
      'no-control-regex': 'off',
      // A leading underscore marks a parameter or binding kept for its position.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Errors are raised through their code's helper (`errors.invalidState(…)`), so a code always carries its status.
    files: ['src/**/*.ts'],
    ignores: ['src/errors.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='AppError']", message: 'Raise errors through their helper in src/errors.ts (errors.<code>(…)).' }],
    },
  },
  {
    // Tests and the bench read JSON answers and fixtures whose shape the test itself asserts.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Documented exceptions to no-explicit-any in the sources:
    // openapi.ts walks the served document as plain JSON; validation.ts constrains a generic
    // function type (any[] is the only parameter list every function is assignable to);
    // boss-db.ts mirrors pg-boss's own executeSql type; the client's update callback gets
    // whichever resource the caller's path names.
    files: ['src/http/openapi.ts', 'src/http/validation.ts', 'src/jobs/boss-db.ts', 'packages/client/src/client.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // `let services` assigned after the queue that reads it lazily (services: () => services!):
    // the jobs/services circle, which goes away when jobs stop knowing the services.
    files: ['src/cli/demo.ts', 'test/helpers/build-test-app.ts', 'test/http/exports/fixtures/hanging-export-worker.ts'],
    rules: { 'prefer-const': 'off' },
  },
);
