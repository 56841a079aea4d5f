export const PLAN_FEATURES = [
  'api_access',
  'pdf_export',
  'json_export',
  'zip_export',
  'feature_ai_enhancer',
  'feature_audio',
  'feature_video',
  'feature_live_photo',
  'feature_transcription',
] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

export interface PlanRow {
  slug: string;
  name: string;
  is_default: boolean;
  sort_order: number;
  price_amount_cents: number | null;
  price_currency: string | null;
  price_interval: string | null;
  features: Partial<Record<PlanFeature, boolean>>;
  max_members_per_book: number;
  max_video_bytes: number;
  storage_bytes_per_book: number;
  max_approved_submissions_per_book: number | null;
  channels: string[];
}

export function hasFeature(plan: Pick<PlanRow, 'features'>, feature: PlanFeature): boolean {
  return plan.features[feature] === true;
}
