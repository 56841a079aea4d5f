import type { MediaKind, ProcessingStatus, ScanResult } from './media-policy.js';

export interface MediaRow {
  id: string;
  submission_id: string;
  book_id: string;
  uploaded_by: string | null;
  kind: MediaKind;
  mime_type: string;
  declared_mime_type: string | null;
  original_filename: string | null;
  size_bytes: number;
  sha256: string;
  storage_key: string;
  thumbnail_key: string | null;
  derived_bytes: number;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  processing_status: ProcessingStatus;
  processing_error: string | null;
  scan_result: ScanResult;
  scan_signature: string | null;
  created_at: string;
  updated_at: string;
}

/** Object-store keys. A book's files live under one prefix, a media file's under its own. */
export const objectKeys = {
  original: (bookId: string, mediaId: string) => `media/${bookId}/${mediaId}/original`,
  poster: (bookId: string, mediaId: string) => `media/${bookId}/${mediaId}/poster.jpg`,
  shareCard: (bookId: string, submissionId: string, token: string) => `share-cards/${bookId}/${submissionId}/${token}.png`,
};

/** Signed media URLs last 15 minutes (X-Amz-Expires=900). */
export const MEDIA_URL_TTL_SECONDS = 900;
