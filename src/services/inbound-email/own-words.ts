/**
 * The sender's own words from an email's text, as reply-by-email services
 * (GitHub, Discourse) take them: everything from the first line that opens
 * quoted history or a signature is dropped, and so are `>` quoted lines.
 * What opens quoted history: an attribution ("On … wrote:", also wrapped
 * over two lines, and its usual translations), an Outlook "Original Message"
 * rule or a "From:" block with "Sent:"/"Date:" and "To:"/"Subject:" under
 * it; a signature: the "-- " delimiter, or a mobile client's "Sent from my …".
 */

const ATTRIBUTION = [
  /^On\b.{0,300}\bwrote:?\s*$/i,
  /^Le\b.{0,300}\ba écrit\s*:?\s*$/i,
  /^Am\b.{0,300}\bschrieb.{0,80}:?\s*$/i,
  /^El\b.{0,300}\bescribió:?\s*$/i,
  /^Il\b.{0,300}\bha scritto:?\s*$/i,
  /^Em\b.{0,300}\bescreveu:?\s*$/i,
  /^Op\b.{0,300}\bschreef.{0,80}:?\s*$/i,
  /^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}.{0,200}<[^>]+@[^>]+>:?\s*$/,
];
const RULE = /^\s*(-{2,}\s*(Original Message|Forwarded message|Ursprüngliche Nachricht|Message d'origine)\s*-{2,}|_{20,})\s*$/i;
const HEADER_LINE = /^\s*\*?(From|De|Von|Van|Da)\s*:\*?\s/i;
const HEADER_FOLLOW = /^\s*\*?(Sent|Date|To|Subject|Cc|Envoyé|Gesendet|Datum|An|Betreff|Objet|À)\s*:\*?/i;
const SIGNATURE = /^(--|-- |—|__)\s*$/;
const MOBILE = /^\s*(Sent from my .{1,60}|Get Outlook for .{1,40}|Sent from (Mail|Yahoo Mail|Outlook) for .{1,40}|Envoyé de mon .{1,40}|Von meinem .{1,60} gesendet)\s*$/i;

export function ownWords(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\u0000/g, '').split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const next = lines[i + 1] ?? '';
    if (ATTRIBUTION.some((re) => re.test(line.trim()))) break;
    // Clients wrap a long attribution: "On Mon, 3 Jun 2024 at 10:00, Ann Example" / "<ann@example.com> wrote:".
    if (/^On\b/i.test(line.trim()) && /\bwrote:?\s*$/i.test(next.trim()) && ATTRIBUTION[0].test(`${line.trim()} ${next.trim()}`)) break;
    if (RULE.test(line)) break;
    if (HEADER_LINE.test(line) && lines.slice(i + 1, i + 5).some((l) => HEADER_FOLLOW.test(l))) break;
    if (SIGNATURE.test(line) || MOBILE.test(line)) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line.replace(/\s+$/, ''));
  }
  return kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
