// Card owners and teams (issue 49, decision 0126). The card service has neither: a card's owner
// and team are Card Console's, kept in its store, and the card's name stays the card service's.
//
//   GET /api/card-owners         → CardOwnerList: every owner and team given, with their cards
//   PUT /api/cards/:id/owner     body CardOwnershipChange → CardOwnership (admins; audited as
//                                `card.owner`); `{ owner: null, team: null }` takes both off
//
// An owner is a name, and an email when alerts should reach them: the email of a person in
// People (who signs in, and then also sees the card's alerts in their inbox), or of a cardholder
// who does not sign in. Owners and teams are matched by their names in any case and spacing
// ("Elena Walsh" and "elena  walsh" are one owner): the first spelling given is the one shown.
import { z } from 'zod';
import { OWNER_FILTER_MAX, OWNERSHIP_NAME_MAX, ownershipKeyOf } from '../index-vocabulary';
import { visibleNameSchema } from './names';
import { peopleEmailSchema } from './people';

export { OWNER_FILTER_MAX, ownershipKeyOf };

export const cardOwnerSchema = z.object({
  name: z.string(),
  email: z.string().optional(),
  /** The email is a person's in People (who signs in). */
  person: z.boolean().optional(),
});
export type CardOwner = z.infer<typeof cardOwnerSchema>;

/** What a card carries of it in the cards list and a card's detail. */
export const cardOwnershipFields = {
  owner: cardOwnerSchema.optional(),
  team: z.string().optional(),
  /**
   * The owner and team could not be read (the database briefly unreachable): the card is
   * shown, its owner and team unknown, never said to be none.
   */
  ownershipUnavailable: z.literal(true).optional(),
};

export const cardOwnershipChangeSchema = z.strictObject({
  owner: z
    .strictObject(
      {
        name: visibleNameSchema,
        email: peopleEmailSchema.optional(),
      },
      { error: 'owner must be an object with name and, optionally, email' },
    )
    .nullable(),
  team: visibleNameSchema.nullable(),
});
export type CardOwnershipChange = z.input<typeof cardOwnershipChangeSchema>;

export const cardOwnershipSchema = z.object({
  cardId: z.string(),
  ...cardOwnershipFields,
  /** Who gave it and when; absent when the card has neither. */
  updatedBy: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type CardOwnership = z.infer<typeof cardOwnershipSchema>;

export const cardOwnerListSchema = z.object({
  owners: z.array(cardOwnerSchema.extend({ cards: z.number().int().positive() })),
  teams: z.array(z.object({ name: z.string(), cards: z.number().int().positive() })),
});
export type CardOwnerList = z.infer<typeof cardOwnerListSchema>;

/**
 * An owner's or a team's name in a filter: one a card could have been given, so no control
 * character or lone surrogate (a given name has none): a NUL would reach the database, which
 * refuses it with an error of its own.
 */
export const ownershipFilterNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(OWNERSHIP_NAME_MAX, `must be at most ${OWNERSHIP_NAME_MAX} characters`)
  .refine((value) => !/[\p{Cc}\p{Cs}]/u.test(value), 'must not contain control characters');
