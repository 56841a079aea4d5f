import type { InvitationRow } from './invitation-types.js';

export function toInvitation(i: InvitationRow) {
  return {
    id: i.id,
    identifier_type: i.identifier_type,
    identifier: i.identifier,
    role: i.role,
    status: i.status,
    invited_by: i.invited_by,
    created_at: i.created_at,
    updated_at: i.updated_at,
    expires_at: i.expires_at,
    accepted_at: i.accepted_at,
    accepted_by: i.accepted_user_id,
    revoked_at: i.revoked_at,
    deep_link: i.deep_link,
  };
}
export type Invitation = ReturnType<typeof toInvitation>;
