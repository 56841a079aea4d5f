import { errors } from '../errors.js';

/** A row's ETag: its updated_at, quoted (updated_at strictly increases on every change). */
export function etagOf(updatedAt: string): string {
  return `"${updatedAt}"`;
}

/**
 * If-Match with strong comparison (RFC 9110 13.1.1): absent passes (last
 * write wins), `*` passes for any existing resource, a weak validator never
 * matches, otherwise one listed tag must equal the current ETag exactly.
 */
export function ifMatchPasses(header: string | undefined, currentEtag: string): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value === '*') return true;
  const tags = value.match(/(W\/)?"[^"]*"/g) ?? [];
  return tags.some((t) => !t.startsWith('W/') && t === currentEtag);
}

export function assertIfMatch(header: string | undefined, currentEtag: string): void {
  if (!ifMatchPasses(header, currentEtag)) throw errors.preconditionFailed(currentEtag);
}
