import type { Db, Queryable, Tx } from '../../db/client.js';
import { paginate, type CursorCodec, type ListQuery } from '../../db/pagination.js';
import { errors } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import type { BookContext } from '../books/book-types.js';
import { findUserByEmail, findUserById } from '../users/user-repository.js';
import { recordEvent } from '../events/record-event.js';
import { toMember } from './member-mapper.js';
import {
  countMembers,
  deleteMember,
  findBookOwner,
  findMember,
  insertMember,
  MEMBER_ORDERINGS,
  selectMembersOfBook,
  type MemberRow,
} from './member-repository.js';

export type MemberRole = 'admin' | 'contributor';

/**
 * Makes a user a member of a book, under the plan's cap (the owner counts):
 * 409 already_a_member, then 402 member_limit_exceeded. The caller holds the
 * book's row lock (requireBookAccess with lock 'update') in the same
 * transaction, so two adds cannot both take the last place. Every path that
 * adds a member goes through here: the API, the operator CLI, invitations
 * (eager and, later, inbound activation).
 */
export async function joinBook(tx: Queryable, ctx: BookContext, userId: string, role: MemberRole): Promise<MemberRow> {
  const cap = ctx.planLimits.max_members_per_book;
  const count = await countMembers(tx, ctx.book.id);
  // Inserted before the cap is judged, so an existing member answers 409 rather than 402; a refusal rolls it back.
  const inserted = await insertMember(tx, ctx.book.id, userId, role);
  if (!inserted) throw errors.alreadyAMember('That user is already a member of this book.', { user_id: userId });
  if (count >= cap) {
    throw errors.memberLimitExceeded(`The ${ctx.book.plan_slug} plan allows ${cap} members per book, the owner included.`, {
      plan: ctx.book.plan_slug,
      limit: cap,
    });
  }
  const member = (await findMember(tx, ctx.book.id, userId))!;
  await recordEvent(tx, 'member.added', ctx.book.id, toMember(member));
  return member;
}

/** Members of a book: list, add (owner or admin), remove (owner only). */
export function createMemberService(deps: { db: Db; access: BookAccess; cursors: CursorCodec }) {
  const { db, access, cursors } = deps;

  /** Adds a member, in `tx`. */
  async function addMember(tx: Tx, actor: Actor, slug: string, who: { email: string } | { userId: string }, role: MemberRole = 'admin') {
    const { ctx } = await access.requireBookAccess(actor, slug, 'manage_members', { tx, lock: 'update' });
    const user = 'email' in who ? await findUserByEmail(tx, who.email) : isUuid(who.userId) ? await findUserById(tx, who.userId) : undefined;
    if (!user) throw errors.userNotFound('No user matches that email or user_id.');
    return toMember(await joinBook(tx, ctx, user.id, role));
  }

  return {
    addMember,

    /** The operator CLI adds members as the book's owner would, under the same rules. */
    async addMemberAsOwner(slug: string, who: { email: string } | { userId: string }, role: MemberRole = 'admin') {
      const owner = await findBookOwner(db, slug);
      if (!owner) throw errors.notFound('book');
      return db.transaction((tx) => addMember(tx, owner, slug, who, role));
    },

    /** Owners and admins see every member, the owner included. */
    async listMembers(actor: Actor, slug: string, query: ListQuery) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'list_members');
      const { page, watermark } = await paginate<MemberRow & Record<string, unknown>>(db, cursors, query, {
        list: `members:${ctx.book.id}`,
        ordering: { name: 'joined', keys: MEMBER_ORDERINGS.joined },
        sync: MEMBER_ORDERINGS.sync,
        where: [`m.book_id = $1`],
        params: [ctx.book.id],
        select: (o) => selectMembersOfBook(db, o) as Promise<(MemberRow & Record<string, unknown>)[]>,
      });
      return { page: { ...page, items: page.items.map(toMember) }, watermark };
    },

    /**
     * Owner only. Ownership cannot be given up this way: removing the owner is
     * 400 cannot_remove_owner. A user who is not (or no longer) a member is a
     * success too, so a retry after a lost answer is harmless; so is a deleted
     * account, whose member.removed went out when it was deleted.
     */
    async removeMember(tx: Tx, actor: Actor, slug: string, userId: string) {
      const { ctx } = await access.requireBookAccess(actor, slug, 'remove_member', { tx, lock: 'update' });
      if (!isUuid(userId)) throw errors.notFound('member');
      if (userId === ctx.book.owner_id) throw errors.cannotRemoveOwner("The book's owner cannot be removed.", { user_id: userId });
      if (await deleteMember(tx, ctx.book.id, userId)) await recordEvent(tx, 'member.removed', ctx.book.id, { id: userId, user_id: userId });
    },
  };
}
export type MemberService = ReturnType<typeof createMemberService>;
