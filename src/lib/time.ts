/** A Date in the wire format: ISO 8601 with six fractional digits and `Z` (a Date has milliseconds only). */
export const isoMicro = (d: Date): string => d.toISOString().replace('Z', '000Z');

/** RFC 7231 HTTP-date of an ISO timestamp, seconds resolution. */
export function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const HTTP_DATE_RE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Parses `updated_since`: ISO 8601 (a missing zone means UTC) or the HTTP-date
 * a client copies from Last-Modified. Returns a timestamp Postgres reads
 * exactly (microseconds kept), or undefined when malformed.
 */
export function parseTimestampParam(value: string): string | undefined {
  const v = value.trim();
  if (HTTP_DATE_RE.test(v)) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  const m = ISO_RE.exec(v);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const base = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  const check = new Date(base);
  // Reject impossible dates such as 2026-02-31 or 25:00.
  if (check.getUTCFullYear() !== +y || check.getUTCMonth() !== +mo - 1 || check.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) {
    return undefined;
  }
  const z = zone.toUpperCase() === 'Z' ? '+00:00' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  if (!/^[+-](0\d|1[0-4]):[0-5]\d$/.test(z)) return undefined;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.slice(0, 6).padEnd(6, '0')}${z}`;
}
