/**
 * What the JSON and ZIP renderers take: a book and its memories as an export
 * shows them. The renderers own this shape, so they depend on nothing of the
 * services; the export service reads its rows into it (export-content.ts).
 * Enumerations (kind, statuses) are plain strings here: a renderer copies
 * them through and decides nothing by them.
 */

/** The book as an export shows it. */
export interface ExportBook {
  id: string;
  slug: string;
  title: string;
  subtitle: string;
  theme: string;
  use_case_slug: string | null;
  settings: Record<string, unknown>;
  is_public: boolean;
  status: string;
  created_at: string;
  updated_at: string;
  /** The book's chosen cover (a releasable photo of this book), cropped around focal_point (0..1) wherever it is printed; null: the automatic choice. */
  cover: { media_id: string; storage_key: string; focal_point: { x: number; y: number } } | null;
}

export interface ExportMedia {
  id: string;
  submission_id: string;
  /** image, video or audio. */
  kind: string;
  mime_type: string;
  original_filename: string | null;
  size_bytes: number;
  sha256: string;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  processing_status: string;
  scan_result: string;
  storage_key: string;
  thumbnail_key: string | null;
  created_at: string;
  /** Where the photo's (or the video's poster frame's) subject is, as processing found it (focal-crop.ts's SubjectFindings); null when not found. Printed books crop around it. */
  subject: unknown;
  /**
   * Audio and video: the transcript when one was requested (`text` is the
   * owner's correction when `edited`); null when none was. Absent for images.
   */
  transcript?: { status: string; language: string | null; text: string; segments: { start: number; end: number; text: string }[]; edited: boolean } | null;
}

export interface ExportSubmission {
  id: string;
  text_content: string;
  contributor_name: string | null;
  contributor_email: string | null;
  contributor_user_id: string | null;
  contributor_first_name: string | null;
  contributor_last_name: string | null;
  is_private: boolean;
  is_pinned: boolean;
  pinned_at: string | null;
  source: string;
  created_at: string;
  updated_at: string;
  media: ExportMedia[];
}
