/**
 * The longest functions in src/, each counted by its own lines: a nested
 * function's lines count for it, not for the function around it (a factory
 * counts by its inner functions). `npx tsx scripts/function-lengths.ts [N]`
 * prints the top N (10); `--max 100` exits 1 when one is longer, outside
 * src/exports/pdf (the PDF renderer is reshaped under the printed-book issue).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const EXEMPT = [path.join('src', 'exports', 'pdf') + path.sep];

interface Length {
  file: string;
  name: string;
  line: number;
  own: number;
}

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText(sf);
  return '(anonymous)';
}

/** Every function of one file with its own line count. */
export function functionLengths(file: string): Length[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const out: Length[] = [];
  const visit = (node: ts.Node): number[] => {
    // The lines taken by the functions inside `node` (nested ones counted once, by the outermost).
    const inner: number[] = [];
    node.forEachChild((child) => {
      if (ts.isFunctionLike(child) && (child as ts.FunctionLikeDeclaration).body) {
        const start = lineOf(child.getStart(sf));
        const end = lineOf(child.getEnd());
        const nested = visit(child);
        const own = end - start + 1 - nested.reduce((a, b) => a + b, 0);
        out.push({ file, name: nameOf(child, sf), line: start + 1, own });
        inner.push(end - start + 1);
      } else inner.push(...visit(child));
    });
    return inner;
  };
  visit(sf);
  return out;
}

function main() {
  const args = process.argv.slice(2);
  const maxAt = args.indexOf('--max');
  const max = maxAt >= 0 ? Number(args[maxAt + 1]) : undefined;
  const top = Number(args.find((a, i) => /^\d+$/.test(a) && (maxAt < 0 || i !== maxAt + 1)) ?? 10);
  const all = [...tsFiles('src')].flatMap(functionLengths).sort((a, b) => b.own - a.own);
  for (const f of all.slice(0, top)) console.log(`${String(f.own).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  if (max !== undefined) {
    const over = all.filter((f) => f.own > max && !EXEMPT.some((e) => f.file.startsWith(e)));
    if (over.length) {
      console.error(`${over.length} function(s) over ${max} lines of their own outside ${EXEMPT.join(', ')}`);
      process.exit(1);
    }
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) main();
