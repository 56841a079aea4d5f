/**
 * Text that tests JSON written by the database against the serializer's:
 * quotes, backslashes, control characters, non-ASCII, line separators, markup
 * and edge spaces.
 */
export const AWKWARD_TEXTS = [
  'Quotes " and \\ backslash',
  'Tabs\tnew\nlines\r and \u0001 control \u001f chars',
  'Ünïcödé, emoji 🎂 and \u2028 separators \u2029',
  '</script><b>& markup</b>',
  '   spaced   ',
];
