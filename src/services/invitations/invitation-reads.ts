import type { Queryable } from '../../db/client.js';
import * as invitations from './invitation-repository.js';

/** The invitations domain's read for the other domains (events): never invitation-repository.ts itself (the domain-walls rule). */
export function findInvitation(q: Queryable, bookId: string, id: string, o: { forUpdate?: boolean } = {}) {
  return invitations.findInvitation(q, bookId, id, o);
}
