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
/** Where a `shop` PDF's cover wrap lives: beside the interior. */
export const coverObjectKey = (bookId: string, jobId: string) => `exports/${bookId}/${jobId}/cover.pdf`;
/** Whether a job makes a cover wrap as well as its book. */
export const hasCoverWrap = (job: Pick<ExportRow, 'export_format' | 'intent'>) => job.export_format === 'pdf' && job.intent === 'shop';
/** The cover's key beside an artifact's (same folder). */
export const coverKeyBeside = (artifactKey: string) => artifactKey.replace(/[^/]+$/, 'cover.pdf');
/** Thickness of one page (half a sheet) when the operator sets none: 60 µm, an uncoated or silk 100–130 g/m² book paper. */
export const DEFAULT_PAPER_CALIPER_UM = 60;

/** The two kinds of export: a book (PDF, JSON or ZIP) and a user's own account (GDPR). */
export type ExportKind = 'book' | 'account';

/** An export of either kind, as stored (see BookExportRow and AccountExportRow for what each kind sets). */
export interface ExportRow {
  id: string;
  kind: ExportKind;
  /** The book exported (kind book) and its slug. */
  book_id: string | null;
  book_slug: string | null;
  /** The account exported (kind account). */
  account_id: string | null;
  requested_by: string | null;
  status: ExportStatus;
  theme: string | null;
  intent: ExportIntent | null;
  export_format: ExportFormat | null;
  bleed_mm: number | null;
  gutter_mm: number | null;
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
  /** Sentences for the owner about a finished render (photos below print resolution). */
  warnings: string[] | null;
}

/** A book export: its book and how it renders are always set. */
export type BookExportRow = ExportRow & {
  kind: 'book';
  book_id: string;
  book_slug: string;
  theme: string;
  intent: ExportIntent;
  export_format: ExportFormat;
  bleed_mm: number;
  gutter_mm: number;
};

/** An account export: its account is always set. */
export type AccountExportRow = ExportRow & { kind: 'account'; account_id: string };

export const isBookExport = (r: ExportRow): r is BookExportRow => r.kind === 'book';
export const isAccountExport = (r: ExportRow): r is AccountExportRow => r.kind === 'account';

export interface ExportRequest {
  theme: string;
  intent?: string;
  export_format?: string;
}

// ---------------------------------------------------------------- account exports

/**
 * How the poll shows an account export: pending, processing, complete, failed, or
 * expired once its 30 days are over (stored as complete with artifact_removed_at).
 */
export const ACCOUNT_EXPORT_STATUSES = ['pending', 'processing', 'complete', 'failed', 'expired'] as const;
export type AccountExportStatus = (typeof ACCOUNT_EXPORT_STATUSES)[number];

/** One export per user per 24 hours (a failed one does not count). */
export const ACCOUNT_EXPORT_WINDOW_SECONDS = 24 * 3600;
/** Finished files are kept 30 days, then removed (status expired). */
export const ACCOUNT_EXPORT_RETENTION_SECONDS = 30 * 24 * 3600;
/** Download links last 60 minutes and are minted afresh on each poll. */
export const ACCOUNT_EXPORT_URL_TTL_SECONDS = 3600;

export const ACCOUNT_EXPORT_CONTENT_TYPE = 'application/gzip';
export const ACCOUNT_EXPORT_FORMAT_VERSION = 2;

/** One prefix per user, so everything of an account can be found. */
export const accountExportKey = (userId: string, exportId: string) => `account-exports/${userId}/${exportId}.json.gz`;
