import {
  type CardOwnershipChange,
  cardOwnershipChangeSchema,
} from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import { nameProblem } from '@card-console/shared/api/names';
import { peopleEmailSchema } from '@card-console/shared/api/people';

/** What the owner form holds, as typed. */
export interface OwnerFormValues {
  ownerName: string;
  ownerEmail: string;
  team: string;
}

export type OwnerField = keyof OwnerFormValues;
export type OwnerFormErrors = Partial<Record<OwnerField | 'form', string>>;

export type OwnerFormResult =
  | { ok: true; body: CardOwnershipChange }
  | { ok: false; errors: OwnerFormErrors };

export function initialOwnerValues(card: Card): OwnerFormValues {
  return {
    ownerName: card.owner?.name ?? '',
    ownerEmail: card.owner?.email ?? '',
    team: card.team ?? '',
  };
}

/**
 * Checks what the person typed and says exactly what would be sent: an empty owner name or team
 * takes that one off; an email needs a name beside it. The messages are the form's words for
 * what `cardOwnershipChangeSchema` refuses, so the BFF is not asked to refuse it.
 */
export function validateOwnerForm(card: Card, values: OwnerFormValues): OwnerFormResult {
  const errors: OwnerFormErrors = {};
  const name = values.ownerName.trim();
  const typedEmail = values.ownerEmail.trim();
  const team = values.team.trim();
  if (name !== '') {
    const problem = nameProblem(name);
    if (problem) errors.ownerName = problem;
  } else if (typedEmail !== '') {
    errors.ownerName =
      "Enter the owner's name too, or clear the email: an email alone is no owner.";
  }
  let email: string | undefined;
  if (typedEmail !== '') {
    const parsed = peopleEmailSchema.safeParse(typedEmail);
    if (parsed.success) email = parsed.data;
    else errors.ownerEmail = 'Enter an email address, such as name@example.com.';
  }
  if (team !== '') {
    const problem = nameProblem(team);
    if (problem) errors.team = problem;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const body: CardOwnershipChange = {
    owner: name === '' ? null : { name, ...(email === undefined ? {} : { email }) },
    team: team === '' ? null : team,
  };
  const unchanged =
    (card.owner?.name ?? null) === (body.owner?.name ?? null) &&
    (card.owner?.email ?? null) === (body.owner?.email ?? null) &&
    (card.team ?? null) === body.team;
  if (unchanged) return { ok: false, errors: { form: 'Nothing has changed.' } };
  // What the BFF checks, checked here too: what is sent is what it takes.
  const checked = cardOwnershipChangeSchema.safeParse(body);
  if (!checked.success) {
    return { ok: false, errors: { form: checked.error.issues[0]?.message ?? 'Check the fields.' } };
  }
  return { ok: true, body };
}
