import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { addMember } from './add-member.js';
import { listMembers } from './list-members.js';
import { removeMember } from './remove-member.js';

export function registerMemberRoutes(app: FastifyInstance, ctx: RouteContext) {
  listMembers(app, ctx);
  addMember(app, ctx);
  removeMember(app, ctx);
}
