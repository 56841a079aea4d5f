import type { Db } from '../../db/client.js';
import { toPlan } from './plan-mapper.js';
import { listPlans } from './plan-repository.js';

/** For other domains, in their own transaction: a plan by slug, and the default plan. */
export { findDefaultPlan, findPlan } from './plan-repository.js';

export function createPlanService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** The public catalog, in its display order. */
    async listPlans() {
      return (await listPlans(db)).map(toPlan);
    },
  };
}
