import type { RevealResponse } from '@card-console/shared/api/cards';
import { AppError, problemCode } from '../../core/app-error';
import { appendOrRefuse, appendOutcome } from '../../platform/audit/audited-change';
import type { Who } from '../../platform/sessions/who';
import { maskDigitRuns } from '../../upstream/safe-message';
import type { FeatureDeps } from '../feature-deps';
import { toRevealResponse } from './card-mapper';

/**
 * Reading a card's PAN and CVV. Every attempt is audited (granted, refused, failed): recorded as
 * `started` before the card service is asked for the numbers (a trail that cannot take that
 * record stops the reveal, nothing asked), and its success written before the numbers are
 * returned (a trail that cannot take it stops them: 503, the `started` record stands), so no
 * reveal goes unrecorded. The typed reason may hold anything: digit runs are masked before it
 * is recorded.
 */
export function createRevealService(deps: Pick<FeatureDeps, 'upstream' | 'audit' | 'logger'>) {
  const { upstream, audit, logger } = deps;
  const base = (who: Who, cardId: string, reason: string | undefined) => ({
    actor: who.actor.email,
    role: who.actor.role,
    action: 'card.reveal' as const,
    cardId,
    target: cardId,
    requestId: who.requestId,
    ...(reason ? { reason: maskDigitRuns(reason) } : {}),
  });

  return {
    /** Records a refused reveal (no reason, no recent second factor). Never throws. */
    async recordDenied(who: Who, cardId: string, reason: string | undefined, error: unknown) {
      try {
        await audit.append({
          ...base(who, cardId, reason),
          outcome: 'denied',
          detail: problemCode(error),
        });
      } catch (auditError) {
        // The refusal stands either way; losing its record is an operator's problem to see.
        logger.error(
          { err: auditError, requestId: who.requestId, traceId: who.trace?.traceId },
          'audit append failed for a refused reveal',
        );
      }
    },

    async reveal(who: Who, cardId: string, reason: string): Promise<RevealResponse> {
      await appendOrRefuse(
        audit,
        { ...base(who, cardId, reason), outcome: 'started' },
        'Nothing was revealed: the audit trail could not record this reveal. Try again shortly.',
      );
      let answer: RevealResponse;
      try {
        const ctx = { requestId: who.requestId, trace: who.trace, role: who.actor.role };
        const card = await upstream.getCard(ctx, cardId, { withSecrets: true });
        const { pan, cvv } = card;
        if (!pan || !cvv) {
          throw new AppError(
            502,
            'upstream_invalid_response',
            'The card service did not return the card details.',
          );
        }
        answer = toRevealResponse({ ...card, pan, cvv });
      } catch (error) {
        await appendOutcome(deps, {
          ...base(who, cardId, reason),
          outcome: 'failed',
          detail: problemCode(error),
        });
        throw error;
      }
      // Written before the numbers leave: if the audit fails, the reveal fails.
      await appendOrRefuse(
        audit,
        { ...base(who, cardId, reason), outcome: 'success', last4: answer.last4 },
        'The card numbers are not shown: the audit trail could not record this reveal. Try again shortly.',
      );
      return answer;
    },
  };
}
