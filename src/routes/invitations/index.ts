import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { createInvitation } from './create-invitation.js';
import { listInvitations } from './list-invitations.js';
import { revokeInvitation } from './revoke-invitation.js';

export function registerInvitationRoutes(app: FastifyInstance, ctx: RouteContext) {
  listInvitations(app, ctx);
  createInvitation(app, ctx);
  revokeInvitation(app, ctx);
}
