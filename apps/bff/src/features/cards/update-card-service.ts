import type { Card } from '@card-console/shared/api/cards';
import type { UpstreamCardPatchBody } from '@card-console/shared/upstream/card';
import { AppError } from '../../http/app-error';
import type { Who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { limitSnapshot, toApiCard } from './card-mapper';

export interface CardChange {
  name?: string;
  transactionSizeLimit?: { minimumCents?: number; maximumCents?: number };
}

function codeOf(error: unknown): string {
  return error instanceof AppError ? error.code : 'internal_error';
}

/**
 * Name and per-transaction limit changes. The card is read first so the merged limits can be
 * checked (minimum ≤ maximum) before anything is sent, and so the audit has a "before".
 * The PATCH carries both limit members (the new one merged with the current one), so the
 * result does not depend on whether the service replaces or merges the limit object.
 */
export function createUpdateCardService({
  upstream,
  audit,
}: Pick<FeatureDeps, 'upstream' | 'audit'>) {
  return {
    async update(who: Who, cardId: string, change: CardChange): Promise<Card> {
      const ctx = { requestId: who.requestId, role: who.actor.role };
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
      try {
        const current = await upstream.getCard(ctx, cardId);
        before = limitSnapshot(current);
        last4 = current.last4;
        const body = mergedPatch(before, change);
        const updated = await upstream.updateCard(ctx, cardId, body);
        await audit.append({
          ...base,
          outcome: 'success',
          last4: updated.last4,
          before,
          after: limitSnapshot(updated),
        });
        return toApiCard(updated);
      } catch (error) {
        await audit.append({
          ...base,
          outcome: 'failed',
          ...(last4 ? { last4 } : {}),
          ...(before ? { before } : {}),
          detail: codeOf(error),
        });
        throw error;
      }
    },
  };
}

function mergedPatch(
  before: { minimumCents?: number; maximumCents?: number },
  change: CardChange,
): UpstreamCardPatchBody {
  const body: UpstreamCardPatchBody = {};
  if (change.name !== undefined) body.name = change.name;
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
