import type { Card, CardSeenValues, CardValues } from '@card-console/shared/api/cards';
import type { UpstreamCard, UpstreamCardPatchBody } from '@card-console/shared/upstream/card';
import { AppError, problemCode } from '../../core/app-error';
import {
  AuditUnavailableError,
  appendOrRefuse,
  appendOutcome,
} from '../../platform/audit/audited-change';
import { LockWaitTimeoutError } from '../../platform/locks/keyed-lock';
import { maskCardNumbers } from '../../platform/security/card-numbers';
import type { Who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import { limitSnapshot, toApiCard } from './card-mapper';

export interface CardChange {
  /** What the person saw; the schema requires it for every value the change touches. */
  expected?: CardSeenValues;
  name?: string;
  transactionSizeLimit?: { minimumCents?: number; maximumCents?: number };
}

/** When a person may try again after the card's previous edit held it past the wait bound. */
const BUSY_RETRY_AFTER_SECONDS = 2;

/** The card's editable values as a 409 `card_changed` reports them: `null` for no limit. */
function currentValues(card: UpstreamCard): CardValues {
  const size = card.spendingConstraint?.spendingRule?.transactionSizeLimit;
  return {
    name: card.name,
    minimumCents: size?.minimum?.amountCents ?? null,
    maximumCents: size?.maximum?.amountCents ?? null,
  };
}

const seenFields = ['name', 'minimumCents', 'maximumCents'] as const;

/** Every value the person gave as seen still holds; values they did not give are not checked. */
function stillAsSeen(expected: CardSeenValues | undefined, now: CardValues): boolean {
  return seenFields.every(
    (field) => expected?.[field] === undefined || expected[field] === now[field],
  );
}

/**
 * Name and per-transaction limit changes. The card service has no version to compare, so each
 * change carries the values the person saw (`expected`), and one card's changes run one at a
 * time (`locks`, key `card:<id>`): inside that, the card is read afresh, compared with
 * `expected` (a difference is a 409 `card_changed` with the current values, nothing sent), the
 * merged limits are checked (minimum ≤ maximum), and the PATCH carries both limit members so
 * the result does not depend on whether the service replaces or merges the limit object. Two
 * changes made from the same view therefore never both succeed, and each audit record's
 * "before" is the card as that change found it. A change that would leave the card as it found it
 * sends nothing, records nothing and answers the card as it is.
 *
 * The card service cannot take a change back, so it is recorded as `started` (with what it asks
 * for) before the PATCH: a trail that cannot take that record stops the change (503
 * `audit_unavailable`, nothing sent). Its outcome follows; when that record is lost after the
 * card service made the change, the person still gets the card as changed (200: the change
 * happened, and asking again would only repeat it) and the operator a log line, while the
 * `started` record stands in the trail.
 */
export function createUpdateCardService({
  upstream,
  audit,
  locks,
  logger,
  cardDirectory,
}: Pick<FeatureDeps, 'upstream' | 'audit' | 'locks' | 'logger'> &
  Partial<Pick<FeatureDeps, 'cardDirectory'>>) {
  return {
    async update(who: Who, cardId: string, change: CardChange): Promise<Card> {
      const ctx = { requestId: who.requestId, trace: who.trace, role: who.actor.role };
      const base = {
        actor: who.actor.email,
        role: who.actor.role,
        action: 'card.update',
        cardId,
        target: cardId,
        requestId: who.requestId,
      } as const;
      let before: ReturnType<typeof limitSnapshot> | undefined;
      let last4: string | undefined;
      let started = false;
      try {
        return await locks.run(`card:${cardId}`, async () => {
          // Fresh: a read already in flight may have started before the previous edit landed.
          const current = await upstream.getCard(ctx, cardId, { fresh: true });
          before = limitSnapshot(current);
          last4 = current.last4;
          const now = currentValues(current);
          if (!stillAsSeen(change.expected, now)) {
            throw new AppError(
              409,
              'card_changed',
              'Someone else changed this card after you loaded it, so nothing was saved. ' +
                'Check its current values and apply your change again.',
              { extensions: { current: now } },
            );
          }
          const body = mergedPatch(before, change);
          // A change that leaves every value as it is sends nothing and records nothing: the
          // answer is the card as it is (the same holds for notes and card owners).
          if (changesNothing(before, body)) return toApiCard(current);
          await appendOrRefuse(audit, {
            ...base,
            outcome: 'started',
            last4: current.last4,
            before,
            after: attemptedSnapshot(change),
          });
          started = true;
          const updated = await upstream.updateCard(ctx, cardId, body);
          // Transactions name the card from the directory: a rename shows there at once.
          cardDirectory?.remember(updated);
          await appendOutcome(
            { audit, logger },
            {
              ...base,
              outcome: 'success',
              last4: updated.last4,
              before,
              after: limitSnapshot(updated),
            },
          );
          return toApiCard(updated);
        });
      } catch (caught) {
        const error =
          caught instanceof LockWaitTimeoutError
            ? new AppError(
                503,
                'card_busy',
                'Another change to this card is still being saved. Try again in a moment.',
                { cause: caught, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
              )
            : caught;
        // Not recorded as started: nothing was sent, and the trail cannot take a record now.
        if (error instanceof AuditUnavailableError) throw error;
        const failed = {
          ...base,
          outcome: 'failed',
          ...(last4 ? { last4 } : {}),
          ...(before ? { before } : {}),
          // A failed record's "after" is what was attempted: the values the change asked for.
          after: attemptedSnapshot(change),
          detail: problemCode(error),
        } as const;
        // After a started record the card service's own answer is what the person needs.
        if (started) await appendOutcome({ audit, logger }, failed);
        else await audit.append(failed);
        throw error;
      }
    },
  };
}

/**
 * The values a change asked for, as a refused or failed change's audit record keeps them: only
 * those it touched. A name is a person's free text: a card number typed into it is masked to
 * its last four, as everywhere else, so the record is still written (card-secrets.ts).
 */
function attemptedSnapshot(change: CardChange): {
  name?: string;
  minimumCents?: number;
  maximumCents?: number;
} {
  const limit = change.transactionSizeLimit;
  return {
    ...(change.name === undefined ? {} : { name: maskCardNumbers(change.name) }),
    ...(limit?.minimumCents === undefined ? {} : { minimumCents: limit.minimumCents }),
    ...(limit?.maximumCents === undefined ? {} : { maximumCents: limit.maximumCents }),
  };
}

/**
 * Whether the PATCH `body` would leave the card as `before` holds it: the name as the card
 * service keeps it (masked, as it is sent), the limits in cents (the body carries both members).
 */
function changesNothing(
  before: { name: string; minimumCents?: number; maximumCents?: number },
  body: UpstreamCardPatchBody,
): boolean {
  const limit = body.spendingConstraint?.spendingRule?.transactionSizeLimit;
  return (
    (body.name === undefined || body.name === before.name) &&
    (limit === undefined ||
      (limit.minimum?.amountCents === before.minimumCents &&
        limit.maximum?.amountCents === before.maximumCents))
  );
}

function mergedPatch(
  before: { minimumCents?: number; maximumCents?: number },
  change: CardChange,
): UpstreamCardPatchBody {
  const body: UpstreamCardPatchBody = {};
  // Masked as it goes: the card service keeps what it is sent, and shows it to anyone.
  if (change.name !== undefined) body.name = maskCardNumbers(change.name);
  const limit = change.transactionSizeLimit;
  if (limit) {
    const minimum = limit.minimumCents ?? before.minimumCents;
    const maximum = limit.maximumCents ?? before.maximumCents;
    if (minimum !== undefined && maximum !== undefined && minimum > maximum) {
      throw new AppError(400, 'invalid_body', 'The minimum must not be above the maximum.');
    }
    body.spendingConstraint = {
      spendingRule: {
        transactionSizeLimit: {
          ...(minimum === undefined ? {} : { minimum: { amountCents: minimum } }),
          ...(maximum === undefined ? {} : { maximum: { amountCents: maximum } }),
        },
      },
    };
  }
  return body;
}
