// Layer and cycle rules for src/ (`npm run lint:layers`): HTTP (routes, web)
// → services → repositories and infrastructure, never back up, no cycles.
// Type-only imports count: a type pulled from a higher layer ties the layers
// as surely as a value does.

/** Entry points that assemble the layers; nothing below them imports them. */
const ENTRY = '^src/(app|server|worker|housekeeping|mail-inbound)[.]ts$|^src/cli/';
/** Infrastructure and persistence: they know no service, route or page. */
const LOWER = '^src/(db|storage|mail|lib|messaging|exports|jobs|metrics)/';

module.exports = {
  forbidden: [
    {
      name: 'domain-walls',
      severity: 'error',
      comment:
        'A domain reaches another only through its service module (or a small read function that module exports), never ' +
        "its repository (*-repository.ts, or a store named so): the tables are the owning domain's to change. " +
        'SQL outside a repository is refused by eslint (scripts/lint/domain-walls.mjs).',
      from: { path: '^src/services/([^/]+)/' },
      to: { path: '^src/services/[^/]+/[^/]+-(repository|store)[.]ts$', pathNot: '^src/services/$1/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes the modules one unit: none can be read, tested or loaded without the others.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'http-only-down',
      severity: 'error',
      comment:
        'Routes and pages are thin: they reach services, the HTTP helpers, lib, errors and config. Three HTTP faces of ' +
        'infrastructure are theirs by nature: the local store serves its own signed URLs (files route), a provider signs ' +
        'the HTTP request itself (webhook signatures), and the pages are drawn in the book themes (with their fallback fonts).',
      from: { path: '^src/(routes|web)/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/(services|http|lib|config)/',
          '^src/errors[.]ts$',
          '^src/$1/',
          '^src/storage/(object-store|local-store)[.]ts$',
          '^src/messaging/webhook-signatures[.]ts$',
          '^src/media-tools/themes[.]ts$',
          '^src/media-tools/font-fallback[.]ts$',
        ],
      },
    },
    {
      name: 'services-not-up',
      severity: 'error',
      comment: 'Services hold the rules and know nothing of HTTP or of how the process is assembled.',
      from: { path: '^src/services/' },
      to: { path: ['^src/(routes|web|http)/', ENTRY] },
    },
    {
      name: 'lower-not-up',
      severity: 'error',
      comment: 'Repositories and infrastructure (db, storage, mail, lib, messaging, export renderers, the queue adapter) know no service, route or page.',
      from: { path: LOWER },
      to: { path: ['^src/(services|routes|web|http)/', ENTRY] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing would fail at run time.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests beside the sources (src/**/*.test.ts) are not part of the layers.
    exclude: { path: '[.]test[.]ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // NodeNext: sources import './x.js', which is x.ts on disk (dependency-cruiser maps it as tsc does).
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
