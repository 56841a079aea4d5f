// Counts the breaches of the domain walls under src/services (issue 39):
// service files that are not a repository (or a store) and hold SQL, and
// imports of another domain's repository. `node scripts/count-walls.mjs [-v]`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { isRepositoryFile, SQL_TEXT } from './lint/domain-walls.mjs';

const ROOT = 'src/services';
const SQL = SQL_TEXT;
const isRepository = isRepositoryFile;
const verbose = process.argv.includes('-v');

const files = readdirSync(ROOT, { recursive: true })
  .map((f) => path.join(ROOT, String(f)))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

const sqlFiles = [];
const crossImports = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const domain = file.split(path.sep)[2];
  // src/services/index.ts assembles the domains: it is no domain of its own.
  const composition = file.split(path.sep).length === 3;
  let sql = 0;
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (SQL.test(node.text)) sql++;
    } else if (ts.isTemplateExpression(node)) {
      const raw = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
      if (SQL.test(raw)) sql++;
    }
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const spec = node.moduleSpecifier && node.moduleSpecifier.text;
      if (spec && spec.startsWith('.') && !composition) {
        const target = path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts');
        const parts = target.split(path.sep);
        if (parts[0] === 'src' && parts[1] === 'services' && parts.length === 4 && parts[2] !== domain && isRepository(parts[3])) {
          crossImports.push(`${file} -> ${target}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (sql > 0 && !isRepository(file)) sqlFiles.push(`${file} (${sql})`);
}
console.log(`service files outside a repository with SQL: ${sqlFiles.length}`);
if (verbose) for (const f of sqlFiles) console.log(`  ${f}`);
console.log(`imports of another domain's repository: ${crossImports.length}`);
if (verbose) for (const f of crossImports) console.log(`  ${f}`);
