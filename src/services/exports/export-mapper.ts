import type { BookExportRow } from './export-types.js';

/** An export job as the API shows it. */
export function toExportJob(e: BookExportRow) {
  return {
    id: e.id,
    book_slug: e.book_slug,
    status: e.status,
    theme: e.theme,
    intent: e.intent,
    export_format: e.export_format,
    bleed_mm: e.bleed_mm,
    gutter_mm: e.gutter_mm,
    created_at: e.created_at,
    updated_at: e.updated_at,
    started_at: e.started_at,
    completed_at: e.completed_at,
    error: e.error,
    // The artifact's size, pages and how long it is kept, once there is one.
    size_bytes: e.status === 'complete' ? e.artifact_bytes : null,
    page_count: e.status === 'complete' ? e.page_count : null,
    expires_at: e.status === 'complete' ? e.expires_at : null,
    warnings: e.warnings ?? [],
  };
}
export type ExportJob = ReturnType<typeof toExportJob>;
