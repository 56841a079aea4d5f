import type { Queryable } from '../../db/client.js';
import * as users from './user-repository.js';

/** The users domain's reads for the other domains (members, subscriptions): never user-repository.ts itself (the domain-walls rule). */

/** The live user of an id (undefined: none). */
export function findUserById(q: Queryable, id: string) {
  return users.findUserById(q, id);
}

/** The live user of an address (compared trimmed and lower-cased; undefined: none). */
export function findUserByEmail(q: Queryable, email: string) {
  return users.findUserByEmail(q, email);
}
