/** A member's role in a book (contributor < admin < owner). */
export type Role = 'owner' | 'admin' | 'contributor';

// The themes are the renderers' (what they can draw); a book's theme is one of them.
export { DEFAULT_THEME, THEMES } from '../../media-tools/themes.js';

/**
 * The languages a book's contributor pages can speak (`settings.language`, set by its owner): the default language
 * of its form and thanks page, beside the reader's browser (see src/web/i18n). BCP 47 primary codes.
 */
export { LANGUAGES as BOOK_LANGUAGES } from '../../lib/i18n/languages.js';

/** The shipped catalog of use cases a book can be set up for. */
export const USE_CASES = [
  'wedding',
  'memorial',
  'baby',
  'birthday',
  'anniversary',
  'retirement',
  'graduation',
  'farewell',
  'family_history',
  'travel',
  'team',
  'other',
] as const;

export const BOOK_STATUSES = ['active', 'archived'] as const;
export type BookStatus = (typeof BOOK_STATUSES)[number];

export interface BookRow {
  id: string;
  slug: string;
  owner_id: string;
  title: string;
  subtitle: string;
  theme: string;
  settings: Record<string, unknown>;
  use_case_slug: string | null;
  is_public: boolean;
  status: BookStatus;
  plan_slug: string;
  storage_used_bytes: number;
  billing_status: 'active' | 'grace_period' | 'canceled';
  grace_period_ends_at: string | null;
  last_activity_at: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  deletion_requested_at: string | null;
}

/** A book as seen by one caller: the row, the caller's role, and what the guard needs. */
export interface BookContext {
  book: BookRow;
  role: Role | null;
  inGracePeriod: boolean;
  planFeatures: Record<string, boolean>;
  planLimits: {
    max_members_per_book: number;
    max_approved_submissions_per_book: number | null;
    max_video_bytes: number;
    storage_bytes_per_book: number;
  };
}

export interface BookInput {
  title?: string;
  subtitle?: string;
  theme?: string;
  settings?: Record<string, unknown>;
  use_case_slug?: string | null;
  is_public?: boolean;
}
