import type { Db } from '../../db/client.js';
import { AppError, errors } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import { findUserByEmail, findUserById } from '../users/user-repository.js';
import { countMembers, findBookOwner, insertMember } from './member-repository.js';

export type MemberRole = 'admin' | 'contributor';

/**
 * Members of a book. Every path that adds one (the API, the operator CLI,
 * eager invitations) goes through addMember, so the plan's member cap holds
 * for all of them; the book row is locked while counting, so two adds cannot
 * both take the last place.
 */
export function createMemberService(deps: { db: Db; access: BookAccess }) {
  const { db, access } = deps;

  async function addMember(actor: Actor, slug: string, who: { email: string } | { userId: string }, role: MemberRole = 'admin') {
    return db.transaction(async (tx) => {
      const { ctx } = await access.requireBookAccess(actor, slug, 'manage_members', { lock: 'update' });
      const user = 'email' in who ? await findUserByEmail(tx, who.email) : isUuid(who.userId) ? await findUserById(tx, who.userId) : undefined;
      if (!user) throw new AppError('user_not_found', 'No user matches that email or user_id.');
      const cap = ctx.planLimits.max_members_per_book;
      const count = await countMembers(tx, ctx.book.id);
      // Inserted before the cap is judged, so an existing member answers 409 rather than 402; a refusal rolls it back.
      const member = await insertMember(tx, ctx.book.id, user.id, role);
      if (!member) throw new AppError('already_a_member', 'That user is already a member of this book.', { user_id: user.id });
      if (count >= cap) {
        throw new AppError('member_limit_exceeded', `The ${ctx.book.plan_slug} plan allows ${cap} members per book, the owner included.`, {
          plan: ctx.book.plan_slug,
          limit: cap,
        });
      }
      return { user_id: user.id, email: user.email, first_name: user.first_name, last_name: user.last_name, ...member };
    });
  }

  return {
    addMember,

    /** The operator CLI adds members as the book's owner would, under the same rules. */
    async addMemberAsOwner(slug: string, who: { email: string } | { userId: string }, role: MemberRole = 'admin') {
      const owner = await findBookOwner(db, slug);
      if (!owner) throw errors.notFound('book');
      return addMember(owner, slug, who, role);
    },
  };
}
export type MemberService = ReturnType<typeof createMemberService>;
