import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { Id, ListEnvelope, ListQuery, Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { isUuid } from '../../lib/ids.js';

export const MemberParams = Type.Object({
  slug: Type.String({ maxLength: 200, description: 'Book slug' }),
  user_id: Type.String({ maxLength: 200, description: "The member's user id (opaque)" }),
});

/**
 * onRequest hook of /members/{user_id}/: an id not shaped like ours names
 * nobody. Answered after the book checks and before the Idempotency-Key is
 * claimed, so such a 404 is never stored for replay.
 */
export async function memberIdMustBeWellFormed(request: FastifyRequest) {
  if (!isUuid((request.params as { user_id?: string }).user_id)) throw errors.notFound('member');
}

export const Member = Type.Object(
  {
    user_id: Id,
    email: Nullable(Type.String({ description: 'null for a contributor who joined by SMS or Telegram and has no email address' })),
    first_name: Type.String(),
    last_name: Type.String(),
    role: StringEnum(['owner', 'admin', 'contributor']),
    joined_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Member',
    title: 'Member',
    description: 'A person who works on the book, and their role',
    examples: [
      {
        user_id: '01935f4d-0b6e-7f3a-8c1d-3e2a9b7c6d5e',
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        role: 'admin',
        joined_at: '2026-11-21T10:00:00.123456Z',
        updated_at: '2026-11-21T10:00:00.123456Z',
      },
    ],
  },
);

export const MemberList = ListEnvelope(Type.Ref('Member'), 'MemberList', 'One page of members');
export const ListMembersQuery = ListQuery;

export const AddMemberBody = StrictObject(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: "The user's email; exactly one of email and user_id" })),
    user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The user's id; exactly one of email and user_id" })),
    role: Type.Optional(StringEnum(['admin', 'contributor'], { default: 'admin', description: 'Ownership cannot be given this way' })),
  },
  {
    // Exactly one of email and user_id: both or neither is a schema failure (422).
    oneOf: [{ required: ['email'] }, { required: ['user_id'] }],
    examples: [{ email: 'ada@example.com', role: 'contributor' }],
  },
);
