import { nameProblem } from '@card-console/shared/api/names';

export interface CategoryFormValues {
  code: string;
  name: string;
}

export type CategoryFormErrors = Partial<Record<keyof CategoryFormValues, string>>;

/** Why a code cannot be used, in plain words (as `accountCodeSchema`); undefined when it can. */
export function codeProblem(value: string): string | undefined {
  const code = value.trim();
  if (code === '') return 'Enter a code.';
  if (code.length > 20) return 'Use at most 20 characters.';
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9.\-/ ]*[A-Za-z0-9])?$/.test(code)) {
    return 'Use letters, digits, “.”, “-”, “/” and spaces, starting and ending with a letter or digit.';
  }
  return undefined;
}

/** What is wrong with a code and a name, field by field; empty when both can be sent. */
export function categoryFormErrors(values: CategoryFormValues): CategoryFormErrors {
  const errors: CategoryFormErrors = {};
  const code = codeProblem(values.code);
  if (code) errors.code = code;
  const name = nameProblem(values.name);
  if (name) errors.name = name;
  return errors;
}

/** "6100 Software", as the notes and the audit trail name a category. */
export const categoryLabel = (c: CategoryFormValues) => `${c.code} ${c.name}`;
