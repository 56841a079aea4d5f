// The domain walls' SQL half (issue 39): in src/services, SQL lives only in a
// domain's repository (`*-repository.ts`, or a store named so: `*-store.ts`).
// The import half (no domain imports another's repository) is the
// `domain-walls` rule of .dependency-cruiser.cjs. scripts/count-walls.mjs
// counts both with the same tests.

/** SQL-looking text: a statement's head, or a clause prose does not have. */
export const SQL_TEXT = /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\s|\b(SELECT\b[\s\S]*\bFROM\b|INSERT\s+INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|ON\s+CONFLICT\b)/;

/** A service file that may hold SQL: a repository, or a store named so. */
export const isRepositoryFile = (file) => /-(repository|store)\.ts$/.test(file);

/** eslint rule: SQL-looking string or template literals in a service file that is no repository. */
export const noSqlOutsideRepository = {
  meta: {
    type: 'problem',
    docs: { description: 'SQL in src/services lives only in a domain repository (*-repository.ts or *-store.ts)' },
    schema: [],
    messages: {
      sql: 'SQL outside a repository: move the statement into this domain\'s *-repository.ts and call it from here.',
    },
  },
  create(context) {
    if (isRepositoryFile(context.filename)) return {};
    return {
      Literal(node) {
        if (typeof node.value === 'string' && SQL_TEXT.test(node.value)) context.report({ node, messageId: 'sql' });
      },
      TemplateLiteral(node) {
        if (SQL_TEXT.test(node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' '))) context.report({ node, messageId: 'sql' });
      },
    };
  },
};

export default { rules: { 'no-sql-outside-repository': noSqlOutsideRepository } };
