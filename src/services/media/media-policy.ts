import { AppError, errors } from '../../errors.js';

/** 1 MB = 1,048,576 bytes (contract-decisions, Smaller points). */
export const MB = 1_048_576;
/** The whole multipart request; a declared Content-Length above it is refused before a byte is read. */
export const MULTIPART_CEILING_BYTES = 90 * MB;
export const PHOTO_CAP_BYTES = 20 * MB;
export const AUDIO_CAP_BYTES = 50 * MB;
/** A live-photo-only plan takes QuickTime motion of at most this long. */
export const LIVE_PHOTO_MAX_SECONDS = 6;

export const MEDIA_KINDS = ['image', 'audio', 'video'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export const PROCESSING_STATUSES = ['pending', 'processing', 'complete', 'failed'] as const;
export type ProcessingStatus = (typeof PROCESSING_STATUSES)[number];
export const SCAN_RESULTS = ['pending', 'clean', 'infected', 'skipped_by_policy', 'not_scanned'] as const;
export type ScanResult = (typeof SCAN_RESULTS)[number];

export function kindOfMime(mime: string): MediaKind | null {
  const top = mime.split('/')[0];
  return (MEDIA_KINDS as readonly string[]).includes(top) ? (top as MediaKind) : null;
}

export interface PlanMediaRules {
  planSlug: string;
  features: Record<string, boolean>;
  maxVideoBytes: number;
}

/** What an upload of this detected type may be: its byte cap, and whether its duration must be checked. */
export interface Admission {
  kind: MediaKind;
  capBytes: number;
  /** Set on a live-photo-only plan: the motion must be QuickTime of at most this many seconds. */
  maxDurationSeconds: number | null;
}

const gated = (kind: MediaKind, mime: string, feature: string, planSlug: string, extra: string) =>
  errors.validation(`The ${planSlug} plan does not accept ${kind} (${mime}): ${extra}`, {
    detected_mime_type: mime,
    kind,
    required_feature: feature,
    plan: planSlug,
  });

/**
 * The type and plan gates of an upload, decided from the type detected in its
 * first bytes: images always (20 MB); audio with feature_audio (50 MB); video
 * with feature_video (the plan's max_video_bytes), or on a plan with only
 * feature_live_photo, QuickTime motion of at most 6 seconds (capped like a
 * photo, since that is what a live photo is). Anything else is 400
 * validation_failed with details.detected_mime_type.
 */
export function admit(mime: string, plan: PlanMediaRules): Admission {
  const kind = kindOfMime(mime);
  if (!kind) {
    throw errors.validation(`Only images, audio and video can be attached; this file is ${mime}.`, {
      detected_mime_type: mime,
      accepted: ['image/*', 'audio/*', 'video/*'],
    });
  }
  if (kind === 'image') return { kind, capBytes: PHOTO_CAP_BYTES, maxDurationSeconds: null };
  if (kind === 'audio') {
    if (!plan.features.feature_audio) throw gated(kind, mime, 'feature_audio', plan.planSlug, 'audio needs a plan with feature_audio.');
    return { kind, capBytes: AUDIO_CAP_BYTES, maxDurationSeconds: null };
  }
  if (plan.features.feature_video) return { kind, capBytes: plan.maxVideoBytes, maxDurationSeconds: null };
  if (plan.features.feature_live_photo) {
    if (mime !== 'video/quicktime') {
      throw gated(kind, mime, 'feature_video', plan.planSlug, `this plan takes only live-photo motion (QuickTime, ${LIVE_PHOTO_MAX_SECONDS} seconds or less).`);
    }
    return { kind, capBytes: Math.max(PHOTO_CAP_BYTES, plan.maxVideoBytes), maxDurationSeconds: LIVE_PHOTO_MAX_SECONDS };
  }
  throw gated(kind, mime, 'feature_video', plan.planSlug, 'video needs a plan with feature_video (or feature_live_photo for short motion).');
}

export function tooLarge(what: string, capBytes: number, details: Record<string, unknown> = {}): AppError {
  return errors.payloadTooLarge(`${what} is larger than ${formatBytes(capBytes)}.`, { limit_bytes: capBytes, ...details });
}

/** Storage runs out: space may be freed, so this is never stored as a key's answer (a retry runs again). */
export function overStorage(planSlug: string, limitBytes: number, usedBytes: number): AppError {
  return errors.planLimitExceeded(
    `This book has ${formatBytes(Math.max(0, limitBytes - usedBytes))} of storage left on the ${planSlug} plan.`,
    { plan: planSlug, limit: 'storage_bytes_per_book', limit_bytes: limitBytes, used_bytes: usedBytes },
    { transient: true },
  );
}

/** A picture over MAX_IMAGE_PIXELS when decoded (a decompression bomb, or just too big to print or show). */
export function tooManyPixels(width: number, height: number, maxPixels: number): AppError {
  return errors.validation(
    `This picture is ${width} × ${height} pixels (${(width * height / 1e6).toFixed(1)} megapixels); pictures may have at most ${maxPixels / 1e6} megapixels.`,
    { field: 'file', reason: 'too_many_pixels', width, height, max_pixels: maxPixels },
  );
}

export function motionTooLong(seconds: number | null): AppError {
  return errors.validation(
    seconds === null
      ? `The duration of this QuickTime file could not be read; live-photo motion must be ${LIVE_PHOTO_MAX_SECONDS} seconds or less.`
      : `Live-photo motion must be ${LIVE_PHOTO_MAX_SECONDS} seconds or less; this one is ${seconds.toFixed(2)} seconds.`,
    { detected_mime_type: 'video/quicktime', kind: 'video', duration_seconds: seconds, max_duration_seconds: LIVE_PHOTO_MAX_SECONDS, required_feature: 'feature_video' },
  );
}

function formatBytes(n: number): string {
  return n % MB === 0 ? `${n / MB} MB` : `${(n / MB).toFixed(1)} MB`;
}
