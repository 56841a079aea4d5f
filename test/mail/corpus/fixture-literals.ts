/**
 * Messages that npm packages ship inside their test files rather than as
 * files of their own: read from node_modules at test time, in the order the
 * test file gives them, so the corpus names each as `<file>#<n>`.
 */

/** The string literals a CoffeeScript test assigns to `msgBody` (planer's tests), heredocs dedented as CoffeeScript does. */
export function coffeeMessages(source: string): string[] {
  const out: string[] = [];
  const marker = 'msgBody = ';
  let at = source.indexOf(marker);
  while (at !== -1) {
    let i = at + marker.length;
    while (source[i] === ' ') i++;
    if (source.startsWith('"""', i)) {
      const end = source.indexOf('"""', i + 3);
      out.push(dedentHeredoc(source.slice(i + 3, end)));
    } else if (source[i] === '"' || source[i] === "'") {
      const end = source.indexOf(source[i], i + 1);
      out.push(unescape(source.slice(i + 1, end)));
    }
    at = source.indexOf(marker, i);
  }
  return out;
}

/**
 * The messages of talon's signature tests: the first argument of each
 * `testExtract(…)` (a string literal, or the `msg` declared above it) and the
 * lines of each `testCandidate([…])`, one message per line list.
 */
export function talonMessages(source: string): string[] {
  const out: string[] = [];
  let msg = '';
  let i = 0;
  for (;;) {
    const nextVar = source.indexOf('var msg = ', i);
    const nextExtract = source.indexOf('testExtract(', i);
    const nextCandidate = source.indexOf('testCandidate([', i);
    const at = Math.min(...[nextVar, nextExtract, nextCandidate].filter((n) => n !== -1));
    if (!Number.isFinite(at)) break;
    if (at === nextVar) {
      [msg, i] = jsString(source, at + 'var msg = '.length);
    } else if (at === nextExtract) {
      let j = at + 'testExtract('.length;
      if (source[j] === '"') {
        let s: string;
        [s, j] = jsString(source, j);
        out.push(s);
      } else if (source.startsWith('msg,', j)) out.push(msg);
      i = j;
    } else {
      let j = at + 'testCandidate(['.length;
      const lines: string[] = [];
      while (source[j] === '"') {
        let s: string;
        [s, j] = jsString(source, j);
        lines.push(s);
        while (source[j] === ',' || source[j] === ' ') j++;
      }
      out.push(lines.join('\n'));
      i = j;
    }
  }
  return out;
}

/** A double-quoted JavaScript string at `at`: its value and the index after it. */
function jsString(source: string, at: number): [string, number] {
  let j = at + 1;
  while (source[j] !== '"') j += source[j] === '\\' ? 2 : 1;
  return [unescape(source.slice(at + 1, j)), j + 1];
}

function unescape(s: string): string {
  let r = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') {
      r += s[i];
      continue;
    }
    const c = s[++i];
    if (c === 'n') r += '\n';
    else if (c === 't') r += '\t';
    else if (c === 'x') {
      r += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else r += c;
  }
  return r;
}

function dedentHeredoc(body: string): string {
  const lines = body.split('\n');
  let indent = Infinity;
  lines.forEach((l, n) => {
    if (n > 0 && l.trim() !== '') indent = Math.min(indent, l.length - l.trimStart().length);
  });
  let text = lines.map((l, n) => (n === 0 || indent === Infinity ? l : l.slice(indent))).join('\n');
  if (text.startsWith('\n')) text = text.slice(1);
  const last = text.lastIndexOf('\n');
  if (last !== -1 && text.slice(last + 1).trim() === '') text = text.slice(0, last);
  return unescape(text);
}
