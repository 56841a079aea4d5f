export const SUBMISSION_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

/** A submission row with its author's name joined in (users.first_name/last_name). */
export interface SubmissionRow {
  id: string;
  book_id: string;
  contributor_user_id: string | null;
  contributor_name: string | null;
  contributor_email: string | null;
  text_content: string;
  is_private: boolean;
  status: SubmissionStatus;
  is_pinned: boolean;
  pinned_at: string | null;
  rejection_reason: string | null;
  share_card_key: string | null;
  /** Set while approved: the approval a share card is being (or was) rendered for. */
  share_card_token: string | null;
  source: string;
  /** What the own-words extraction cut from an emailed memory (null otherwise). */
  email_trimmed: EmailTrimmed | null;
  created_at: string;
  updated_at: string;
  contributor_first_name: string | null;
  contributor_last_name: string | null;
}

/** The fields a client may write (create and PATCH). */
export interface SubmissionInput {
  text_content?: string;
  contributor_name?: string | null;
  is_private?: boolean;
}

export const MAX_TEXT_LENGTH = 20_000;
export const MAX_CONTRIBUTOR_NAME_LENGTH = 200;
export const MAX_REJECTION_REASON_LENGTH = 2_000;

/** What was cut from a memory sent by email, each part as text (null when nothing of that kind was cut). */
export interface EmailTrimmed {
  quoted: string | null;
  signature: string | null;
  forward_header: string | null;
}

/** How much of each cut part is kept. */
export const MAX_EMAIL_TRIMMED_PART_LENGTH = 20_000;
