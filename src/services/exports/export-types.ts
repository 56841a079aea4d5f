import type { PlanFeature } from '../plans/plan-types.js';

export const EXPORT_STATUSES = ['pending', 'processing', 'complete', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** What the export is for, and the bleed and gutter (mm) that follow from it (the contract's table). */
export const INTENTS = {
  screen: { bleedMm: 0, gutterMm: 0 },
  home: { bleedMm: 0, gutterMm: 10 },
  shop: { bleedMm: 3, gutterMm: 15 },
} as const;
export type ExportIntent = keyof typeof INTENTS;
export const EXPORT_INTENTS = Object.keys(INTENTS) as ExportIntent[];
export const DEFAULT_INTENT: ExportIntent = 'screen';

/** Each format and the plan feature it needs. */
export const FORMAT_FEATURES = { pdf: 'pdf_export', json: 'json_export', zip: 'zip_export' } as const satisfies Record<string, PlanFeature>;
export type ExportFormat = keyof typeof FORMAT_FEATURES;
export const EXPORT_FORMATS = Object.keys(FORMAT_FEATURES) as ExportFormat[];
export const DEFAULT_FORMAT: ExportFormat = 'pdf';

export const FORMAT_FILES: Record<ExportFormat, { file: string; contentType: string }> = {
  pdf: { file: 'book.pdf', contentType: 'application/pdf' },
  json: { file: 'book.json', contentType: 'application/json' },
  zip: { file: 'book.zip', contentType: 'application/zip' },
};

/** Finished artifacts are kept this long, then removed (410 export_failed from then on). */
export const ARTIFACT_RETENTION_SECONDS = 7 * 24 * 3600;
/** Signed artifact URLs last 15 minutes, like media URLs. */
export const ARTIFACT_URL_TTL_SECONDS = 900;
/** The first wait the contract advises on a 502 from the artifact route (then 2, 4, 8 s, capped at 60). */
export const ARTIFACT_RETRY_AFTER_SECONDS = 1;

/**
 * Unfinished (pending or processing) exports allowed at once, per book and
 * per requesting user; one more answers 429 rate_limited, with Retry-After.
 */
export const UNFINISHED_EXPORTS_PER_BOOK = 4;
export const UNFINISHED_EXPORTS_PER_USER = 10;
/** Retry-After of that 429: about one render of a large book. */
export const EXPORT_LIMIT_RETRY_AFTER_SECONDS = 60;

/** Where a job's artifact lives: one prefix per book, so a purge can find everything. */
export const exportObjectKey = (bookId: string, jobId: string, format: ExportFormat) => `exports/${bookId}/${jobId}/${FORMAT_FILES[format].file}`;

export interface ExportRow {
  id: string;
  book_id: string;
  book_slug: string;
  requested_by: string | null;
  status: ExportStatus;
  theme: string;
  intent: ExportIntent;
  export_format: ExportFormat;
  bleed_mm: number;
  gutter_mm: number;
  artifact_key: string | null;
  artifact_bytes: number | null;
  page_count: number | null;
  error: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  artifact_removed_at: string | null;
}

export interface ExportRequest {
  theme: string;
  intent?: string;
  export_format?: string;
}
