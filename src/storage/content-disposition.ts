import contentDisposition from 'content-disposition';

/**
 * `attachment; filename="…"` for a download name, ASCII only: a name outside
 * ASCII gets a transliterated `filename` for old clients and the exact name in
 * `filename*` (RFC 6266), so the header never carries raw non-ASCII bytes.
 */
export function attachmentDisposition(downloadName: string): string {
  const fallback = downloadName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_');
  return contentDisposition(downloadName, { type: 'attachment', fallback });
}
