import {
  walkBudget as budgetOf,
  type WalkBudgetOptions,
  type WalkLimits,
} from '../platform/pagination/walk-budget';
import { cardService } from './walk-limits';

export { paced, paginate } from '../platform/pagination/paginate';
export type { WalkBudget, WalkLimits } from '../platform/pagination/walk-budget';

/**
 * A walk of the card service's pages: the one paginator (`platform/pagination/`) with the card
 * service as the source its errors name. `WALK_LIMITS` (`walk-limits.ts`) has its limits.
 */
export function walkBudget(limits: WalkLimits, options: Partial<WalkBudgetOptions> = {}) {
  return budgetOf(limits, { source: cardService, ...options });
}
