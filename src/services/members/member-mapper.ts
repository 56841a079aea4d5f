import type { MemberRow } from './member-repository.js';

export function toMember(m: MemberRow) {
  return {
    user_id: m.user_id,
    email: m.email,
    first_name: m.first_name,
    last_name: m.last_name,
    role: m.role,
    joined_at: m.joined_at,
    updated_at: m.updated_at,
  };
}
export type Member = ReturnType<typeof toMember>;
