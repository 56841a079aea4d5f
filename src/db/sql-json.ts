/**
 * JSON built by the database, for pages of many rows: the service passes each
 * row's text through instead of parsing every column and serialising it
 * again, which was most of a page's CPU. Each helper gives the JSON text of
 * one value, exactly as the wire format has it (null for NULL).
 */

/** A string, number or boolean column: escaped as JSON.stringify escapes (quotes, backslash, control characters). */
export function jsonValue(expr: string): string {
  return `coalesce(to_json(${expr})::text, 'null')`;
}

/** A json or jsonb column, as stored (jsonb prints a space after ':' and ',': same JSON, other whitespace). */
export function jsonRaw(expr: string): string {
  return `coalesce((${expr})::text, 'null')`;
}

/** ISO 8601 with six fractional digits and Z: what parseTimestamp makes of a timestamptz. */
export const TIMESTAMP_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

export function jsonTimestamp(expr: string): string {
  return `coalesce('"' || to_char((${expr}) AT TIME ZONE 'UTC', ${TIMESTAMP_FORMAT}) || '"', 'null')`;
}

/** An ETag (etagOf): the timestamp in quotes, as a JSON string. */
export function jsonEtag(expr: string): string {
  return `coalesce('"\\"' || to_char((${expr}) AT TIME ZONE 'UTC', ${TIMESTAMP_FORMAT}) || '\\""', 'null')`;
}

/** `{"a":…,"b":…}` from [field, JSON text expression] pairs, in the order given (the schema's). */
export function jsonObject(fields: [name: string, json: string][]): string {
  return `'{' || ${jsonMembers(fields)} || '}'`;
}

/**
 * `"a":…,"b":…` (no braces) from [field, JSON text expression] pairs: a run of
 * an object's members, for an object whose other members the service adds
 * (URLs it signs per request).
 */
export function jsonMembers(fields: [name: string, json: string][]): string {
  return fields.map(([name, json], i) => `'${i === 0 ? '' : ','}${JSON.stringify(name)}:' || ${json}`).join(' || ');
}

/** A page of rows whose items are JSON text, as the list envelope's JSON (ListEnvelope's field order). */
export function jsonPage(page: { items: string[]; next_cursor: string | null; has_more: boolean }): string {
  return `{"items":[${page.items.join(',')}],"next_cursor":${JSON.stringify(page.next_cursor)},"has_more":${page.has_more}}`;
}
