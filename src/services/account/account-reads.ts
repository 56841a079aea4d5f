import type { Queryable } from '../../db/client.js';
import * as account from './account-repository.js';

/** The account domain's read for the other domains (account exports): never account-repository.ts itself (the domain-walls rule). */
export function findDeletionState(q: Queryable, userId: string, o: { forUpdate?: boolean } = {}) {
  return account.findDeletionState(q, userId, o);
}
