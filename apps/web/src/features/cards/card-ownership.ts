import { ownershipKeyOf } from '@card-console/shared/index-vocabulary';

/** Two owners' or teams' names are one when their keys are ("Elena Walsh", "elena  walsh"). */
export const sameOwnership = (a: string, b: string) => ownershipKeyOf(a) === ownershipKeyOf(b);

/**
 * A filter's choices: every name the directory gives, and a link's name it does not hold (as
 * typed), so the filter always shows what the list is filtered by. `chosen` is the directory's
 * spelling of the link's name when it has it.
 */
export function ownershipChoices(names: readonly string[], value: string | undefined) {
  const known = value === undefined ? undefined : names.find((n) => sameOwnership(n, value));
  return {
    names: value !== undefined && known === undefined ? [value, ...names] : [...names],
    chosen: known ?? value,
  };
}
