import contentDisposition from 'content-disposition';

/**
 * The file-name extensions of the types the service serves, the usual one
 * first. A type not listed takes its subtype (`x-` and any `+suffix`
 * dropped: `image/svg+xml` → `svg`).
 */
const EXTENSIONS: Record<string, readonly string[]> = {
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/png': ['png'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/heic': ['heic'],
  'image/heif': ['heif', 'heic'],
  'image/avif': ['avif'],
  'image/tiff': ['tif', 'tiff'],
  'image/bmp': ['bmp'],
  'image/jxl': ['jxl'],
  'video/mp4': ['mp4', 'm4v'],
  'video/quicktime': ['mov', 'qt'],
  'video/webm': ['webm'],
  'video/x-matroska': ['mkv'],
  'video/3gpp': ['3gp'],
  'audio/mpeg': ['mp3'],
  'audio/mp4': ['m4a', 'mp4'],
  'audio/x-m4a': ['m4a'],
  'audio/aac': ['aac'],
  'audio/wav': ['wav'],
  'audio/x-wav': ['wav'],
  'audio/ogg': ['ogg', 'oga', 'opus'],
  'audio/opus': ['opus', 'ogg'],
  'audio/flac': ['flac'],
  'audio/x-flac': ['flac'],
  'audio/webm': ['webm'],
  'application/pdf': ['pdf'],
  'application/json': ['json'],
  'application/zip': ['zip'],
  'application/gzip': ['gz'],
};

function extensionsOf(contentType: string): readonly string[] {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  // Bytes of no known type: the name says nothing wrong about them, so it stays as given.
  if (type === 'application/octet-stream') return [];
  const known = EXTENSIONS[type];
  if (known) return known;
  const sub = (type.split('/')[1] ?? '').replace(/^x-/, '').split('+')[0]!.replace(/[^a-z0-9]/g, '');
  return sub ? [sub] : [];
}

/**
 * A download's name ends in an extension of the type it is served as (the
 * type detected from its bytes): a browser or desktop that goes by the
 * extension opens it as what it is. A name with another extension keeps it
 * and gains the right one (`p.html` served as a GIF saves as `p.html.gif`),
 * so the name a contributor gave stays recognisable.
 */
export function downloadNameFor(downloadName: string, contentType: string | undefined): string {
  if (!contentType) return downloadName;
  const extensions = extensionsOf(contentType);
  if (!extensions.length) return downloadName;
  const dot = downloadName.lastIndexOf('.');
  const current = dot > 0 ? downloadName.slice(dot + 1).toLowerCase() : '';
  return extensions.includes(current) ? downloadName : `${downloadName}.${extensions[0]}`;
}

/**
 * `attachment; filename="…"` for a download name, ASCII only: a name outside
 * ASCII gets a transliterated `filename` for old clients and the exact name in
 * `filename*` (RFC 6266), so the header never carries raw non-ASCII bytes.
 * With the type the file is served as, the name ends in its extension
 * (downloadNameFor).
 */
export function attachmentDisposition(downloadName: string, contentType?: string): string {
  const name = downloadNameFor(downloadName, contentType);
  const fallback = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_');
  return contentDisposition(name, { type: 'attachment', fallback });
}
