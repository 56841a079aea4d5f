import { etagOf } from '../lib/etag.js';
import { jsonEtag, jsonMembers, jsonRaw, jsonTimestamp, jsonValue } from './sql-json.js';

/**
 * A response shape written once: its field list, in the schema's order, from
 * which come both the mapper (row -> object, for one row) and the SQL that
 * makes the same JSON text in the database (for pages of many rows, see
 * sql-json.ts). The field list is the shape's only definition: the mapper's
 * type is derived from it, and every column it names must be the row's.
 *
 *   const BOOK = jsonShape<BookRow, [role: Role | null]>()({ slug: value('slug'), role: given(0), … });
 *   BOOK.toObject(row, role)          // the Book
 *   BOOK.sql({ row: 'b' }, ['m.role']) // [SQL of the Book's JSON text]
 */

/** Where the SQL finds a column the row holds under another name (a joined table's column, aliased in the SELECT). */
export interface SqlColumn {
  /** A key of the tables given to sql() (`row` is the row's own table). */
  table: string;
  column: string;
}

export interface ColumnOptions {
  sql?: SqlColumn;
  /** What a NULL reads as (`?? ifNull` in the mapper, coalesce in SQL). */
  ifNull?: string;
}

type ColumnKind = 'value' | 'raw' | 'timestamp';

/** A string, number or boolean column, as it is. */
export const value = <C extends string, O extends ColumnOptions = object>(column: C, o?: O) => ({ kind: 'value' as const, column, ...(o as O) });
/** A json or jsonb column, as stored. */
export const raw = <C extends string>(column: C) => ({ kind: 'raw' as const, column });
/** A timestamptz column: the row holds it as parseTimestamp makes it, the SQL writes the same text. */
export const timestamp = <C extends string>(column: C) => ({ kind: 'timestamp' as const, column });
/** The ETag of a timestamp column (etagOf). */
export const etag = <C extends string>(column: C) => ({ kind: 'etag' as const, column });
/** A value the caller gives, argument `arg` after the row; in SQL an expression the caller gives (sql()'s `given[arg]`). */
export const given = <I extends number>(arg: I) => ({ kind: 'given' as const, arg });
/**
 * A value the caller gives, argument `arg` after the row, that the database
 * cannot make (a URL signed per request): the SQL makes the members around
 * it and joinJson() puts the caller's JSON text in its place.
 */
export const slot = <I extends number>(arg: I) => ({ kind: 'slot' as const, arg });
/** A nested object, or null when the column `when` is NULL; inside it, `when` is known not to be null. */
export const objectOrNull = <C extends string, F extends Fields>(when: C, fields: F) => ({ kind: 'object' as const, when, fields });

type Field =
  | { kind: ColumnKind; column: string; sql?: SqlColumn; ifNull?: string }
  | { kind: 'etag'; column: string }
  | { kind: 'given' | 'slot'; arg: number }
  | { kind: 'object'; when: string; fields: Fields };
type Fields = { readonly [name: string]: Field };

/** The fields a row of type Row can fill: every column named is one of Row's. */
type FieldsOf<Row, Args extends unknown[]> = { readonly [name: string]: FieldOf<Row, Args> };
type FieldOf<Row, Args extends unknown[]> =
  | { kind: ColumnKind; column: keyof Row & string; sql?: SqlColumn; ifNull?: string }
  | { kind: 'etag'; column: keyof Row & string }
  | { kind: 'given' | 'slot'; arg: ArgIndex<Args> }
  | { kind: 'object'; when: keyof Row & string; fields: FieldsOf<Row, Args> };
type ArgIndex<Args extends unknown[]> = Exclude<Partial<Args>['length'], Args['length']> & number;

/** The object a field list makes from a row of type Row and the arguments Args. */
export type ShapeOf<Row, Args extends unknown[], S> = { -readonly [K in keyof S]: FieldOut<Row, Args, S[K]> };
type FieldOut<Row, Args extends unknown[], F> = F extends { kind: 'etag' }
  ? string
  : F extends { kind: ColumnKind; column: infer C extends keyof Row; ifNull: string }
    ? Exclude<Row[C], null> | string
    : F extends { kind: ColumnKind; column: infer C extends keyof Row }
      ? Row[C]
      : F extends { kind: 'given' | 'slot'; arg: infer I extends number }
        ? Args[I]
        : F extends { kind: 'object'; when: infer C extends keyof Row; fields: infer N }
          ? ShapeOf<Omit<Row, C> & { [P in C]: NonNullable<Row[P]> }, Args, N> | null
          : never;

/** The SQL's table aliases: `row` is the row's own table; others are those SqlColumn names. */
export type Tables = { readonly row: string; readonly [table: string]: string };

export interface JsonShape<Row, Args extends unknown[], Out> {
  /** The response object of one row, its members in the field list's order. */
  readonly toObject: (row: Row, ...args: Args) => Out;
  /**
   * The SQL of the shape's JSON text, made once per set of aliases and
   * given expressions: one text expression per run of members between slots
   * (one in all for a shape without slots), the first opening the object and
   * the last closing it.
   */
  sql(tables: Tables, given?: readonly (string | undefined)[]): string[];
  /** The whole JSON text from the runs sql() made and each slot's JSON text, in the field list's order (run, slot, slot, run…). */
  readonly joinJson: (...parts: string[]) => string;
}

/**
 * A shape from its field list, in the schema's order. Row is the row the
 * mapper reads, Args the values the caller gives after it (labels welcome).
 */
export function jsonShape<Row, Args extends unknown[] = []>() {
  return <S extends FieldsOf<Row, Args>>(fields: S): JsonShape<Row, Args, ShapeOf<Row, Args, S>> => {
    const sqlCache = new Map<string, string[]>();
    return {
      toObject: compileMapper(fields) as JsonShape<Row, Args, ShapeOf<Row, Args, S>>['toObject'],
      sql(tables, given = []) {
        const key = `${Object.entries(tables).join(';')}|${given.join(';')}`;
        let parts = sqlCache.get(key);
        if (!parts) sqlCache.set(key, (parts = shapeSql(fields, tables, given)));
        return parts;
      },
      joinJson: compileJoin(fields),
    };
  };
}

// The mapper runs for every row read: it is generated once as one object
// literal, as fast as a hand-written one (a loop storing members by name was
// ten times slower, 2 µs a row against 0.15).

const key = (s: string) => {
  if (s === '__proto__') throw new Error('json-shape: __proto__ cannot be a member or a column');
  return JSON.stringify(s);
};

function argName(arg: number): string {
  if (!Number.isInteger(arg) || arg < 0) throw new Error(`json-shape: bad argument index ${arg}`);
  return `a${arg}`;
}

function objectSource(fields: Fields): string {
  const members = Object.entries(fields).map(([name, f]) => `${key(name)}: ${fieldSource(f)}`);
  return `{ ${members.join(', ')} }`;
}

function fieldSource(f: Field): string {
  switch (f.kind) {
    case 'value':
    case 'raw':
    case 'timestamp':
      return f.ifNull === undefined ? `row[${key(f.column)}]` : `(row[${key(f.column)}] ?? ${JSON.stringify(f.ifNull)})`;
    case 'etag':
      return `etagOf(row[${key(f.column)}])`;
    case 'given':
    case 'slot':
      return argName(f.arg);
    case 'object':
      return `(row[${key(f.when)}] == null ? null : ${objectSource(f.fields)})`;
  }
}

function argCount(fields: Fields): number {
  let n = 0;
  for (const f of Object.values(fields)) {
    if (f.kind === 'given' || f.kind === 'slot') n = Math.max(n, f.arg + 1);
    else if (f.kind === 'object') n = Math.max(n, argCount(f.fields));
  }
  return n;
}

function compileMapper(fields: Fields): (row: unknown, ...args: unknown[]) => unknown {
  const params = ['row', ...Array.from({ length: argCount(fields) }, (_, i) => argName(i))];
  return new Function('etagOf', `return function toObject(${params.join(', ')}) { return ${objectSource(fields)}; };`)(etagOf);
}

/** A run of members without slots, or one slot. */
type Item = { run: [name: string, f: Field][] } | { slot: string };

function items(fields: Fields): Item[] {
  const out: Item[] = [];
  for (const [name, f] of Object.entries(fields)) {
    if (f.kind === 'slot') out.push({ slot: name });
    else {
      const last = out[out.length - 1];
      if (last && 'run' in last) last.run.push([name, f]);
      else out.push({ run: [[name, f]] });
    }
  }
  return out;
}

function shapeSql(fields: Fields, tables: Tables, given: readonly (string | undefined)[]): string[] {
  const list = items(fields);
  const runs: string[] = [];
  list.forEach((item, i) => {
    if (!('run' in item)) return;
    runs.push(`${i === 0 ? `'{' || ` : ''}${membersSql(item.run, tables, given)}${i === list.length - 1 ? ` || '}'` : ''}`);
  });
  return runs;
}

function membersSql(run: [string, Field][], tables: Tables, given: readonly (string | undefined)[]): string {
  return jsonMembers(run.map(([name, f]) => [name, fieldSql(f, tables, given)]));
}

function fieldSql(f: Field, tables: Tables, given: readonly (string | undefined)[]): string {
  switch (f.kind) {
    case 'value':
    case 'raw':
    case 'timestamp': {
      let expr = columnSql(tables, f.sql ?? { table: 'row', column: f.column });
      if (f.ifNull !== undefined) expr = `coalesce(${expr}, '${f.ifNull.replaceAll("'", "''")}')`;
      return f.kind === 'raw' ? jsonRaw(expr) : f.kind === 'timestamp' ? jsonTimestamp(expr) : jsonValue(expr);
    }
    case 'etag':
      return jsonEtag(columnSql(tables, { table: 'row', column: f.column }));
    case 'given': {
      const expr = given[f.arg];
      if (expr === undefined) throw new Error(`json-shape: no SQL given for argument ${f.arg}`);
      return jsonValue(expr);
    }
    case 'slot':
      throw new Error('json-shape: a slot inside a nested object has no SQL');
    case 'object': {
      const members = Object.entries(f.fields).map(([name, inner]): [string, string] => [name, fieldSql(inner, tables, given)]);
      return `CASE WHEN ${columnSql(tables, { table: 'row', column: f.when })} IS NULL THEN 'null' ELSE '{' || ${jsonMembers(members)} || '}' END`;
    }
  }
}

function columnSql(tables: Tables, c: SqlColumn): string {
  const alias = tables[c.table];
  if (alias === undefined) throw new Error(`json-shape: no alias for table ${c.table}`);
  return `${alias}.${c.column}`;
}

/** joinJson: the runs as they are, each slot as `"name":` and its JSON text, separated by commas, in one generated expression. */
function compileJoin(fields: Fields): (...parts: string[]) => string {
  const list = items(fields);
  const terms: string[] = [];
  list.forEach((item, i) => {
    const lead = (i === 0 ? ('slot' in item ? '{' : '') : ',') + ('slot' in item ? `${key(item.slot)}:` : '');
    if (lead) terms.push(JSON.stringify(lead));
    terms.push(`p${i}`);
  });
  if ('slot' in list[list.length - 1]!) terms.push(`"}"`);
  const params = list.map((_, i) => `p${i}`);
  return new Function(`return function joinJson(${params.join(', ')}) { return ${terms.join(' + ')}; };`)();
}
