import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import { assertIfMatch } from '../../lib/etag.js';
import { recall, remember } from '../../lib/request-scope.js';
import { hasFeature, type PlanFeature, type PlanRow } from '../plans/plan-types.js';
import { createBatchedLookup } from '../../db/batched-lookup.js';
import { contextKey, findBookContext, findBookContexts, lockBookWithActivity } from './book-repository.js';
import type { BookContext, Role } from './book-types.js';
import { SLUG_RE } from './slug.js';

export type { Role };

/**
 * The book and the caller's place in it, for a domain that acts in a book on
 * its own terms (an invitation accepted, a message received), in its
 * transaction; `lock` takes the book's row lock.
 */
export { findBookContext } from './book-repository.js';

const RANK: Record<Role, number> = { contributor: 1, admin: 2, owner: 3 };

/**
 * Everything a caller can do on a book, with the least role it needs, whether
 * it writes (and so stops in a grace period), and the plan feature it needs.
 * The route guard and the permissions view both read this table, so they
 * cannot disagree.
 */
export const BOOK_ACTIONS = {
  view: { role: 'admin', write: false },
  update: { role: 'admin', write: true },
  archive: { role: 'owner', write: true },
  restore: { role: 'owner', write: true },
  delete: { role: 'owner', write: true, allowedInGrace: true },
  read_billing: { role: 'owner', write: false },
  list_members: { role: 'admin', write: false },
  manage_members: { role: 'admin', write: true },
  remove_member: { role: 'owner', write: true },
  list_invitations: { role: 'admin', write: false },
  manage_invitations: { role: 'admin', write: true },
  list_submissions: { role: 'admin', write: false },
  create_submission: { role: 'admin', write: true, feature: 'api_access' },
  moderate_submissions: { role: 'admin', write: true },
  approve_submission: { role: 'admin', write: true, graceStatus: 423 },
  delete_submission: { role: 'admin', write: true },
  edit_own_submission: { role: 'contributor', write: true },
  upload_own_media: { role: 'contributor', write: true },
  read_media: { role: 'admin', write: false },
  read_original: { role: 'contributor', write: false },
  delete_media: { role: 'admin', write: true },
  request_transcription: { role: 'admin', write: true, feature: 'feature_transcription' },
  read_transcription: { role: 'admin', write: false },
  edit_transcription: { role: 'admin', write: true },
  export: { role: 'admin', write: true, allowedInGrace: true },
  read_exports: { role: 'admin', write: false },
  read_channels: { role: 'admin', write: false },
  rotate_form_key: { role: 'owner', write: true },
  list_subscriptions: { role: 'admin', write: false },
  cancel_own_subscription: { role: 'contributor', write: true },
} as const satisfies Record<string, { role: Role; write: boolean; feature?: PlanFeature; allowedInGrace?: boolean; graceStatus?: 403 | 423 }>;

export type BookAction = keyof typeof BOOK_ACTIONS;
type ActionRule = { role: Role; write: boolean; feature?: PlanFeature; allowedInGrace?: boolean; graceStatus?: 403 | 423 };

export interface BookAccessState {
  role: Role | null;
  isPublic: boolean;
  inGracePeriod: boolean;
  plan: Pick<PlanRow, 'features'>;
}

export function hasRole(role: Role | null, needed: Role): boolean {
  return role !== null && RANK[role] >= RANK[needed];
}

/**
 * The single authorisation rule for book routes, in the contract's order:
 * visibility (404), role (403 insufficient_role), then — once the request is
 * otherwise valid — grace period (403 book_grace_period, 423 for approve)
 * and plan gates (403 feature_gated).
 */
export function assertVisible(s: Pick<BookAccessState, 'role' | 'isPublic'>): void {
  if (s.role === null && !s.isPublic) throw errors.notFound('book');
}

export function assertRole(s: BookAccessState, action: BookAction): void {
  assertVisible(s);
  const rule: ActionRule = BOOK_ACTIONS[action];
  if (!hasRole(s.role, rule.role)) throw errors.insufficientRole(rule.role === 'contributor' ? 'member' : rule.role === 'admin' ? 'owner or admin' : 'owner');
}

export function assertGraceAndPlan(s: BookAccessState, action: BookAction): void {
  const rule: ActionRule = BOOK_ACTIONS[action];
  if (rule.write && s.inGracePeriod && !rule.allowedInGrace) {
    throw errors.bookGracePeriod('The book is in its billing grace period; changes are paused until billing is settled.', rule.graceStatus ?? 403);
  }
  if (rule.feature && !hasFeature(s.plan, rule.feature)) {
    throw errors.featureGated(`The book's plan does not include ${rule.feature}.`, { feature: rule.feature });
  }
}

export function isAllowed(s: BookAccessState, action: BookAction): boolean {
  try {
    assertRole(s, action);
    assertGraceAndPlan(s, action);
    return true;
  } catch {
    return false;
  }
}

/** The actions list of the permissions view: exactly what the guard would let through now. */
export function allowedActions(s: BookAccessState): BookAction[] {
  return (Object.keys(BOOK_ACTIONS) as BookAction[]).filter((a) => isAllowed(s, a));
}

/** Whoever acts: a signed-in user (the API), or the user the operator CLI acts as. */
export interface Actor {
  id: string;
  email: string;
}

export function accessState(ctx: BookContext): BookAccessState {
  return { role: ctx.role, isPublic: ctx.book.is_public, inGracePeriod: ctx.inGracePeriod, plan: { features: ctx.planFeatures } };
}

export interface AccessOptions<T> {
  /** The request's If-Match, checked against the target's ETag after the role and before the gates. */
  ifMatch?: string;
  /**
   * Loads the action's target once the caller may act on the book (a
   * submission, say): it may refuse with the target's own 404 or 403, and
   * gives the ETag If-Match is compared with.
   */
  target?: (ctx: BookContext, q: Queryable) => Promise<{ value: T; etag: string }>;
  /** Row lock on the book for the rest of `tx` (writes that count or serialise per book). */
  lock?: 'update' | 'share';
  /** The caller's transaction: the book (and the target) are read afresh in it. Without it, a read shared with concurrent requests. */
  tx?: Tx;
}

/**
 * The one access rule for everything under /books/{slug}/, used by every
 * service method whoever calls it (API, CLI, jobs), in the contract's order:
 * not visible (404), role (403 insufficient_role), the target and its
 * precondition (412), then grace period and plan gates. The HTTP layer runs
 * `checkVisibleAndRole` early too, before idempotency and schema validation
 * as the contract orders them; what it read is remembered for the request,
 * so a read costs one query. A write hands its transaction in (`tx`): the
 * book is read afresh in it (and locked when asked), so the write decides on
 * what it commits with.
 */
export function createBookAccess(deps: { db: Db }) {
  const { db } = deps;
  // Outside a transaction, the reads of concurrent requests share one query (each still reads afresh).
  const lookup = createBatchedLookup<{ slug: string; userId: string | null }, BookContext>({
    id: (k) => contextKey(k.slug, k.userId),
    run: (pairs) => findBookContexts(db, pairs),
  });

  /**
   * In a transaction (`tx`) the book is read afresh through it (and locked
   * when asked), so a write decides on what it commits with; outside one,
   * concurrent reads share a query and the result is remembered for the
   * request. `confirmedLater`: the caller decides again under the book's lock
   * before it commits, so what this request already read will do.
   */
  async function load(actor: Actor | null, slug: string, tx: Queryable | undefined, lock: 'update' | 'share' | null, confirmedLater = false): Promise<BookContext> {
    if (!SLUG_RE.test(slug)) throw errors.notFound('book');
    if (lock && !tx) throw new Error('a row lock needs the transaction it lasts for');
    const key = `book:${slug}`;
    const remembered = tx && !confirmedLater ? undefined : recall<BookContext>(actor, key);
    if (remembered) return remembered;
    const ctx = tx ? await findBookContext(tx, slug, actor?.id ?? null, lock) : await lookup({ slug, userId: actor?.id ?? null });
    if (!ctx) throw errors.notFound('book');
    if (!tx) remember(actor, key, ctx);
    return ctx;
  }

  return {
    /** 404 when the book is not visible, 403 when the role is short; nothing else. */
    async checkVisibleAndRole(actor: Actor | null, slug: string, action: BookAction | 'visible'): Promise<BookContext> {
      const ctx = await load(actor, slug, undefined, null);
      const state = accessState(ctx);
      if (action === 'visible') assertVisible(state);
      else assertRole(state, action);
      return ctx;
    },

    async requireBookAccess<T = undefined>(
      actor: Actor,
      slug: string,
      action: BookAction,
      o: AccessOptions<T> = {},
    ): Promise<{ ctx: BookContext; target: T }> {
      const ctx = await load(actor, slug, o.tx, o.lock ?? null);
      const state = accessState(ctx);
      assertRole(state, action);
      let target = undefined as T;
      if (o.target) {
        const found = await o.target(ctx, o.tx ?? db);
        target = found.value;
        assertIfMatch(o.ifMatch, found.etag);
      }
      assertGraceAndPlan(state, action);
      return { ctx, target };
    },

    /**
     * For a write that adds to a book without reading what else is in it (a
     * new memory), inside the caller's transaction: the access is decided on
     * the book as this request read it, and `work` runs. Then, as the
     * transaction's last step before COMMIT (Tx.beforeCommit), the book's
     * row is locked with its activity moved to now, and the decision is taken
     * again on what the lock returns. A change committed meanwhile (the book
     * put in its grace period or moved off a plan with the feature, the
     * caller removed) fails the write, which rolls back whole; an idempotent
     * request then answers the error without storing it, so a retry decides
     * afresh. Concurrent writers to one book wait on each other only for
     * that step and their commit, not for each other's whole transaction.
     */
    async writeThenLock<T>(tx: Tx, actor: Actor, slug: string, action: BookAction, work: (ctx: BookContext) => Promise<T>): Promise<T> {
      const ctx = await load(actor, slug, tx, null, true);
      assertRole(accessState(ctx), action);
      assertGraceAndPlan(accessState(ctx), action);
      const result = await work(ctx);
      // Held from here to COMMIT only: the stored answer and COMMIT leave together right after this step (one round trip).
      tx.beforeCommit(async () => {
        const locked = await lockBookWithActivity(tx, ctx.book.id, slug, actor.id);
        if (!locked) throw errors.notFound('book');
        assertRole(accessState(locked), action);
        assertGraceAndPlan(accessState(locked), action);
      });
      return result;
    },
  };
}
export type BookAccess = ReturnType<typeof createBookAccess>;
