export const IDENTIFIER_TYPES = ['email', 'phone', 'telegram'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];

export const INVITATION_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const INVITATION_ROLES = ['admin', 'contributor'] as const;
export type InvitationRole = (typeof INVITATION_ROLES)[number];

/** How long a pending invitation waits for its invitee. */
export const INVITATION_TTL_DAYS = 14;

export interface InvitationRow {
  id: string;
  book_id: string;
  identifier_type: IdentifierType;
  identifier: string;
  role: InvitationRole;
  /** As stored; a pending row past expires_at reads as expired (see EFFECTIVE_STATUS). */
  status: InvitationStatus;
  invited_by: string | null;
  accepted_user_id: string | null;
  deep_link: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

export interface InvitationInput {
  identifier_type: IdentifierType;
  identifier: string;
  role?: InvitationRole;
}
