import type { Db, Queryable } from '../../db/client.js';
import { toPlan } from './plan-mapper.js';
import * as plans from './plan-repository.js';

export function createPlanService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** The public catalog, in its display order. */
    async listPlans() {
      return (await plans.listPlans(db)).map(toPlan);
    },
  };
}

/** The plan of a slug (undefined: no such plan), for the domains a plan prices or limits (books, billing), in their transaction. */
export function findPlan(q: Queryable, slug: string) {
  return plans.findPlan(q, slug);
}

/** The plan a book gets when none is asked for. */
export function findDefaultPlan(q: Queryable) {
  return plans.findDefaultPlan(q);
}

/** The whole catalog as rows, in display order (for a domain that checks a plan's fields). */
export function listPlanRows(q: Queryable) {
  return plans.listPlans(q);
}

/** The channels a plan allows (undefined: no such plan). */
export function findPlanChannels(q: Queryable, slug: string) {
  return plans.findPlanChannels(q, slug);
}
