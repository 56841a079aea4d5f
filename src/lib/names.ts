/**
 * People's names (first_name, last_name, contributor_name) never hold control
 * characters (Unicode Cc: C0 with newlines, tabs and NUL, DEL, C1). They
 * would break a mail header or body, a log line, or a rendered page.
 * Everything that takes a name refuses them: the API by schema
 * (NAME_PATTERN, 422), the pages and inbound paths by hasControlCharacters.
 */
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;
/** In a message, the Unicode line and paragraph separators break lines too. */
const LINE_BREAKING_RE_G = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** JSON Schema `pattern` of a name without control characters. */
export const NAME_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

export function hasControlCharacters(value: string): boolean {
  return CONTROL_RE.test(value);
}

/** A stored name as one line of a message (rows written before names were checked may still hold a newline). */
export function oneLine(value: string): string {
  return value.replace(LINE_BREAKING_RE_G, ' ').trim();
}
