import {
  type Card,
  type CardPatchBody,
  type CardValues,
  LARGE_MAXIMUM_CENTS,
} from '@card-console/shared/api/cards';
import { nameProblem } from '@card-console/shared/api/names';
import { centsToDollarInput, formatCents, parseDollarsToCents } from '@card-console/shared/money';

export interface LimitFormValues {
  name: string;
  minimum: string;
  maximum: string;
}

export type LimitField = keyof LimitFormValues;

export interface LimitChange {
  field: string;
  from: string;
  to: string;
  /** For a limit: whether it lets fewer transactions through (tighter) or more (looser). */
  effect?: 'tighter' | 'looser';
}

export type LimitFormResult =
  | { ok: true; body: CardPatchBody; changes: LimitChange[]; warnings: string[] }
  | { ok: false; errors: Partial<Record<LimitField | 'form', string>> };

/** The service's ceiling for a limit: $100,000,000.00. */
const MAX_LIMIT_CENTS = 100_000_000_00;

export function initialLimitValues(card: Card): LimitFormValues {
  const { minimumCents, maximumCents } = card.transactionSizeLimit;
  return {
    name: card.name,
    minimum: minimumCents === undefined ? '' : centsToDollarInput(minimumCents),
    maximum: maximumCents === undefined ? '' : centsToDollarInput(maximumCents),
  };
}

const show = (cents: number | undefined) => (cents === undefined ? 'none' : formatCents(cents));

/**
 * Checks what the person typed against the card as it is, and says exactly what would be
 * sent. A limit cannot be removed through the API, so an existing one cannot be emptied.
 */
export function validateLimitForm(
  card: Card,
  values: LimitFormValues,
  largeMaximumCents = LARGE_MAXIMUM_CENTS,
): LimitFormResult {
  const errors: Partial<Record<LimitField | 'form', string>> = {};
  const name = values.name.trim();
  // Only a name the person changed is theirs to fix: the card service's own name (which may hold
  // what a person may not type, such as a zero-width space no one can see to remove) is not sent
  // back with a limit change.
  const nameError = name === card.name ? undefined : nameProblem(name);
  if (nameError) errors.name = nameError;

  const parseLimit = (field: 'minimum' | 'maximum', current: number | undefined) => {
    const text = values[field];
    if (text.trim() === '') {
      if (current !== undefined) {
        errors[field] = `Enter a ${field}; an existing limit can be changed but not removed.`;
      }
      return current;
    }
    const parsed = parseDollarsToCents(text, { maxCents: MAX_LIMIT_CENTS });
    if (!parsed.ok) {
      errors[field] = parsed.error;
      return undefined;
    }
    return parsed.cents;
  };
  const { minimumCents: oldMin, maximumCents: oldMax } = card.transactionSizeLimit;
  const min = parseLimit('minimum', oldMin);
  const max = parseLimit('maximum', oldMax);
  if (!errors.minimum && !errors.maximum && min !== undefined && max !== undefined && min > max) {
    errors.minimum = 'The minimum must not be above the maximum.';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const body: CardPatchBody = {};
  const changes: LimitChange[] = [];
  if (name !== card.name) {
    body.name = name;
    changes.push({ field: 'Name', from: card.name, to: name });
  }
  const limit: { minimumCents?: number; maximumCents?: number } = {};
  if (min !== undefined && min !== oldMin) {
    limit.minimumCents = min;
    changes.push({
      field: 'Minimum per transaction',
      from: show(oldMin),
      to: show(min),
      effect: min > (oldMin ?? 0) ? 'tighter' : 'looser',
    });
  }
  if (max !== undefined && max !== oldMax) {
    limit.maximumCents = max;
    changes.push({
      field: 'Maximum per transaction',
      from: show(oldMax),
      to: show(max),
      effect: oldMax === undefined || max < oldMax ? 'tighter' : 'looser',
    });
  }
  if (Object.keys(limit).length > 0) body.transactionSizeLimit = limit;
  if (changes.length === 0) return { ok: false, errors: { form: 'Nothing has changed.' } };
  body.expected = {
    // What this change replaces, as shown: the BFF refuses it (409) if the card moved on since.
    // A limit change states both limits, since each was chosen seeing the other.
    ...(body.name === undefined ? {} : { name: card.name }),
    ...(body.transactionSizeLimit
      ? { minimumCents: oldMin ?? null, maximumCents: oldMax ?? null }
      : {}),
  };

  const warning = max === oldMax ? undefined : maximumWarningFor(max, largeMaximumCents);
  return { ok: true, body, changes, warnings: warning ? [warning] : [] };
}

/** The card as it is now, from the values a 409 `card_changed` carries. */
export function cardWithValues(card: Card, values: CardValues): Card {
  const transactionSizeLimit: Card['transactionSizeLimit'] = {};
  if (values.minimumCents !== null) transactionSizeLimit.minimumCents = values.minimumCents;
  if (values.maximumCents !== null) transactionSizeLimit.maximumCents = values.maximumCents;
  return { ...card, name: values.name, transactionSizeLimit };
}

/** The person's change laid over the card as it is now: what they changed, the rest as it is. */
export function changeOnCurrent(current: Card, body: CardPatchBody): LimitFormValues {
  const values = initialLimitValues(current);
  const limit = body.transactionSizeLimit;
  return {
    name: body.name ?? values.name,
    minimum:
      limit?.minimumCents === undefined ? values.minimum : centsToDollarInput(limit.minimumCents),
    maximum:
      limit?.maximumCents === undefined ? values.maximum : centsToDollarInput(limit.maximumCents),
  };
}

/**
 * Shown while typing, before any submit, when the maximum is being changed: a $0 maximum or a
 * very large one is allowed but rarely meant.
 */
export function maximumWarning(
  card: Card,
  maximum: string,
  largeMaximumCents = LARGE_MAXIMUM_CENTS,
): string | undefined {
  const parsed = parseDollarsToCents(maximum);
  if (!parsed.ok || parsed.cents === card.transactionSizeLimit.maximumCents) return undefined;
  return maximumWarningFor(parsed.cents, largeMaximumCents);
}

function maximumWarningFor(cents: number | undefined, largeMaximumCents: number) {
  if (cents === 0) return 'A $0.00 maximum blocks every purchase on this card.';
  if (cents !== undefined && cents >= largeMaximumCents) {
    const limit = formatCents(largeMaximumCents);
    return `A ${formatCents(cents)} maximum per purchase is very high (${limit} or more): check the amount.`;
  }
  return undefined;
}
