import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { Id, ListEnvelope, ListQuery, Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { isUuid } from '../../lib/ids.js';
import { IDENTIFIER_TYPES, INVITATION_ROLES, INVITATION_STATUSES } from '../../services/invitations/invitation-types.js';

export const InvitationParams = Type.Object({
  slug: Type.String({ maxLength: 200, description: 'Book slug' }),
  id: Type.String({ maxLength: 200, description: 'Invitation id (opaque)' }),
});

/** onRequest hook of /invitations/{id}/: a malformed id names nothing (404), before the Idempotency-Key is claimed. */
export async function invitationIdMustBeWellFormed(request: FastifyRequest) {
  if (!isUuid((request.params as { id?: string }).id)) throw errors.notFound('invitation');
}

const invitationFields = {
  id: Id,
  identifier_type: StringEnum(IDENTIFIER_TYPES),
  identifier: Type.String({ description: 'Normalised: email lower-cased, phone in E.164, Telegram handle without @ and lower-cased' }),
  role: StringEnum(INVITATION_ROLES),
  status: StringEnum(INVITATION_STATUSES, { description: 'A pending invitation expires 14 days after it was made' }),
  invited_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
  expires_at: Timestamp,
  accepted_at: Nullable(Timestamp),
  accepted_by: Nullable(Type.String({ description: 'The account that accepted the invitation (for an email invitation, the account with the invited address); null until accepted' })),
  revoked_at: Nullable(Timestamp),
  deep_link: Nullable(
    Type.String({
      description:
        "Telegram invitations: the bot's link (https://t.me/<bot>?start=…) to pass on to the invitee, since a bot cannot write first; null otherwise",
    }),
  ),
};

const example = {
  id: '01935f4f-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
  identifier_type: 'email',
  identifier: 'grace@example.com',
  role: 'contributor',
  status: 'pending',
  invited_by: '01935f4d-0b6e-7f3a-8c1d-3e2a9b7c6d5e',
  created_at: '2026-11-21T10:00:00.123456Z',
  updated_at: '2026-11-21T10:00:00.123456Z',
  expires_at: '2026-12-05T10:00:00.123456Z',
  accepted_at: null,
  accepted_by: null,
  revoked_at: null,
  deep_link: null,
};

export const Invitation = Type.Object(invitationFields, {
  $id: 'Invitation',
  title: 'Invitation',
  description: 'An invitation to join a book by email, phone or Telegram',
  examples: [example],
});

export const RevokedInvitation = Type.Object(
  { ...invitationFields, already_revoked: Type.Boolean({ description: 'True when the invitation was revoked before this call' }) },
  { title: 'RevokedInvitation', description: 'The invitation, now revoked', examples: [{ ...example, status: 'revoked', revoked_at: '2026-11-22T09:00:00.000000Z', already_revoked: false }] },
);

export const InvitationList = ListEnvelope(Type.Ref('Invitation'), 'InvitationList', 'One page of invitations');

export const ListInvitationsQuery = Type.Composite([
  ListQuery,
  Type.Object({ status: Type.Optional(StringEnum(INVITATION_STATUSES, { description: 'Only invitations in this state; unknown: 400 query_param_invalid' })) }),
]);

export const CreateInvitationBody = StrictObject(
  {
    identifier_type: StringEnum(IDENTIFIER_TYPES),
    identifier: Type.String({
      minLength: 1,
      maxLength: 320,
      description:
        'An email address, a phone number (E.164, or national in the configured default region) or a Telegram username (with or without @); ' +
        'not one: 400 validation_failed',
    }),
    role: Type.Optional(StringEnum(INVITATION_ROLES, { default: 'contributor' })),
  },
  { examples: [{ identifier_type: 'phone', identifier: '+44 20 7946 0958', role: 'contributor' }] },
);
