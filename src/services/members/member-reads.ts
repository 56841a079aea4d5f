import type { Queryable } from '../../db/client.js';
import * as members from './member-repository.js';

/** The members domain's reads for the other domains (subscriptions): never member-repository.ts itself (the domain-walls rule). */

/** The user's membership of the book (undefined: not a member). */
export function findMember(q: Queryable, bookId: string, userId: string) {
  return members.findMember(q, bookId, userId);
}

/** The owner of the live book of a slug (undefined: no such book). */
export function findBookOwner(q: Queryable, slug: string) {
  return members.findBookOwner(q, slug);
}
