import { contributorUserOf } from '../lib/contributor.js';
import type { ExportBook, ExportMedia, ExportSubmission } from './export-input.js';

/**
 * The JSON export: `{format_version, exported_at, book, submissions}`, the
 * book's approved memories in book order (pinned first, then oldest first)
 * with their media's metadata. Produced as a stream of text chunks, one
 * memory at a time, so a book of any size is never held whole.
 */

export const JSON_FORMAT_VERSION = 1;

export interface JsonExportInput {
  book: ExportBook;
  exportedAt: string;
  submissions: AsyncIterable<ExportSubmission>;
  /** In a ZIP: where the media file is, relative to the JSON (null when it is not in the archive). */
  fileOf?(s: ExportSubmission, m: ExportMedia): string | null;
}

function bookJson(b: ExportBook) {
  return {
    slug: b.slug,
    title: b.title,
    subtitle: b.subtitle,
    theme: b.theme,
    use_case_slug: b.use_case_slug,
    settings: b.settings,
    is_public: b.is_public,
    status: b.status,
    created_at: b.created_at,
    updated_at: b.updated_at,
  };
}

function mediaJson(s: ExportSubmission, m: ExportMedia, fileOf: JsonExportInput['fileOf']) {
  return {
    id: m.id,
    kind: m.kind,
    mime_type: m.mime_type,
    original_filename: m.original_filename,
    size_bytes: m.size_bytes,
    sha256: m.sha256,
    width: m.width,
    height: m.height,
    duration_seconds: m.duration_seconds,
    processing_status: m.processing_status,
    scan_result: m.scan_result,
    created_at: m.created_at,
    ...(fileOf ? { file: fileOf(s, m) } : {}),
    // Voice notes and videos: their transcript (the owner's correction when edited), null when none was asked for.
    ...(m.kind === 'audio' || m.kind === 'video' ? { transcript: m.transcript ?? null } : {}),
  };
}

export function submissionJson(s: ExportSubmission, fileOf?: JsonExportInput['fileOf']) {
  return {
    id: s.id,
    text_content: s.text_content,
    contributor_name: s.contributor_name,
    contributor_email: s.contributor_email,
    contributor_user: contributorUserOf(s),
    is_private: s.is_private,
    is_pinned: s.is_pinned,
    pinned_at: s.pinned_at,
    source: s.source,
    created_at: s.created_at,
    updated_at: s.updated_at,
    media: s.media.map((m) => mediaJson(s, m, fileOf)),
  };
}

const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);

/** The document as text chunks (pretty-printed, two spaces). */
export async function* jsonExportChunks(input: JsonExportInput): AsyncGenerator<string> {
  yield `{\n  "format_version": ${JSON_FORMAT_VERSION},\n  "exported_at": ${JSON.stringify(input.exportedAt)},\n`;
  yield `  "book": ${indent(JSON.stringify(bookJson(input.book), null, 2), '  ')},\n  "submissions": [`;
  let first = true;
  for await (const s of input.submissions) {
    yield `${first ? '' : ','}\n    ${indent(JSON.stringify(submissionJson(s, input.fileOf), null, 2), '    ')}`;
    first = false;
  }
  yield `${first ? '' : '\n  '}]\n}\n`;
}
