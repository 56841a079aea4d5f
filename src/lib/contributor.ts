import { jsonShape, objectOrNull, value } from '../db/json-shape.js';

/**
 * How a memory's contributor is shown, alike in the API's submissions, the
 * JSON and ZIP exports, the printed book and the notifications. It takes the
 * submission's columns with its author's account name joined in; it lives
 * here, below both the services and the renderers, so each of them uses it.
 */
export interface ContributorColumns {
  /** The name given with the memory (web form, SMS, mail). */
  contributor_name: string | null;
  contributor_user_id: string | null;
  /** users.first_name / last_name of contributor_user_id (null without one). */
  contributor_first_name: string | null;
  contributor_last_name: string | null;
}

export interface ContributorUser {
  id: string;
  first_name: string;
  last_name: string;
}

/**
 * The `contributor_user` member, written once: the author's account, or null
 * when the memory came without one. The Submission shape uses it (its SQL
 * reads the left-joined users row named `author`), and so do the exports.
 */
export const CONTRIBUTOR_USER = objectOrNull('contributor_user_id', {
  id: value('contributor_user_id'),
  first_name: value('contributor_first_name', { sql: { table: 'author', column: 'first_name' }, ifNull: '' }),
  last_name: value('contributor_last_name', { sql: { table: 'author', column: 'last_name' }, ifNull: '' }),
});
const CONTRIBUTOR = jsonShape<ContributorColumns>()({ contributor_user: CONTRIBUTOR_USER });

/** The `contributor_user` member of a row (see CONTRIBUTOR_USER). */
export function contributorUserOf(s: ContributorColumns): ContributorUser | null {
  return CONTRIBUTOR.toObject(s).contributor_user;
}

/** The name a memory is signed with: the name given with it, else its author's, else none. */
export function signatureOf(s: Pick<ContributorColumns, 'contributor_name' | 'contributor_first_name' | 'contributor_last_name'>): string | null {
  const given = s.contributor_name?.trim();
  if (given) return given;
  const account = [s.contributor_first_name, s.contributor_last_name].filter(Boolean).join(' ').trim();
  return account || null;
}
