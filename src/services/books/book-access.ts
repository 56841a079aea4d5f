import { AppError, errors } from '../../errors.js';
import { hasFeature, type PlanFeature, type PlanRow } from '../plans/plan-types.js';

export type Role = 'owner' | 'admin' | 'contributor';

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
  manage_invitations: { role: 'admin', write: true },
  list_submissions: { role: 'admin', write: false },
  create_submission: { role: 'admin', write: true, feature: 'api_access' },
  moderate_submissions: { role: 'admin', write: true },
  approve_submission: { role: 'admin', write: true, graceStatus: 423 },
  delete_submission: { role: 'admin', write: true },
  edit_own_submission: { role: 'contributor', write: true },
  upload_own_media: { role: 'contributor', write: true },
  export: { role: 'admin', write: true, allowedInGrace: true },
  read_channels: { role: 'admin', write: false },
  list_subscriptions: { role: 'admin', write: false },
  cancel_own_subscription: { role: 'contributor', write: true },
} as const satisfies Record<string, { role: Role; write: boolean; feature?: PlanFeature; allowedInGrace?: boolean; graceStatus?: number }>;

export type BookAction = keyof typeof BOOK_ACTIONS;
type ActionRule = { role: Role; write: boolean; feature?: PlanFeature; allowedInGrace?: boolean; graceStatus?: number };

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
    throw new AppError('book_grace_period', 'The book is in its billing grace period; changes are paused until billing is settled.', null, {
      status: rule.graceStatus ?? 403,
    });
  }
  if (rule.feature && !hasFeature(s.plan, rule.feature)) {
    throw new AppError('feature_gated', `The book's plan does not include ${rule.feature}.`, { feature: rule.feature });
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
