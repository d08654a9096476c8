// The alerts' side of an index sync: once a walked range's rows are in the index, the enabled
// rules are evaluated over them and what they raise is raised (once per idempotency key, however
// often the same days are walked again, by however many replicas). The sync logs a failure here
// and goes on (`IndexRowsWritten`).
//
// What each kind is given:
// - transaction kinds: the rows just written; a card's known categories are those of its other
//   rows in the index (the rows this range wrote left out);
// - utilisation: each card of the rows, its limit as the card directory has it (as the cards
//   list does) and its spend in the limit's current window, summed from the index;
// - balance: not evaluated yet. The sync does not read the sub account's balance (the card
//   service's sub-account list has it); balance rules raise nothing until it does.
import { SPEND_STATUSES } from '@card-console/shared/api/transaction-index';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { CardDirectory } from '../cards/card-directory';
import type { IndexRowsWritten } from '../transaction-index/index-sync';
import type { TransactionIndex } from '../transaction-index/transaction-index';
import { currentUtilizationWindow } from '../transaction-index/utilization-window';
import { type CardState, evaluateAlerts } from './alert-evaluator';

export interface AlertSyncDeps {
  transactionIndex: Pick<TransactionIndex, 'alerts'>;
  cardDirectory: Pick<CardDirectory, 'ready' | 'label' | 'utilizationLimit'>;
  clock: Clock;
  logger: Pick<Logger, 'info'>;
  /** Who a team rule's alert goes to: every person the app knows. */
  teamRecipients: () => readonly string[] | Promise<readonly string[]>;
}

/** The index sync's `rowsWritten`: evaluates the enabled rules over the rows and raises. */
export function raiseAlertsOnSync(deps: AlertSyncDeps): IndexRowsWritten {
  return async ({ subAccountId, rows, store }) => {
    if (rows.length === 0) return;
    const alerts = await deps.transactionIndex.alerts();
    const rules = (await alerts.enabledRules()).filter(
      (rule) =>
        rule.kind !== 'balance_below' &&
        (rule.subAccountId === undefined || rule.subAccountId === subAccountId),
    );
    if (rules.length === 0) return;
    const now = deps.clock.now();
    const cardIds = [...new Set(rows.flatMap((row) => (row.cardId ? [row.cardId] : [])))];
    const known = rules.some((r) => r.kind === 'new_category')
      ? await store.cardCategories(
          cardIds,
          rows.map((row) => row.id),
        )
      : new Map<string, Set<string>>();
    await deps.cardDirectory.ready();

    const cards = new Map<string, CardState>();
    const windows = new Map<string, NonNullable<CardState['utilisation']>>();
    const wantsUtilisation = rules.some((r) => r.kind === 'utilisation_above');
    for (const cardId of cardIds) {
      const label = deps.cardDirectory.label(cardId);
      cards.set(cardId, {
        ...(label ? { name: label.name } : {}),
        ...(label?.last4 ? { lastFour: label.last4 } : {}),
        knownCategories: known.get(cardId) ?? new Set(),
      });
      if (!wantsUtilisation) continue;
      const { limit } = deps.cardDirectory.utilizationLimit(cardId);
      const limitCents = limit?.limitAmount?.amountCents;
      const window = limit ? currentUtilizationWindow(limit, now) : undefined;
      if (!window || limitCents === undefined) continue;
      const spent = await store.summary({
        cardIds: [cardId],
        statuses: SPEND_STATUSES,
        from: window.from,
        to: window.to,
      });
      windows.set(cardId, {
        limitCents,
        window: { fromDay: window.fromDay, toDay: window.toDay, timeZone: window.timeZone },
        spentCents: spent.debitCents,
      });
    }
    for (const [cardId, utilisation] of windows) {
      const card = cards.get(cardId);
      if (card) cards.set(cardId, { ...card, utilisation });
    }

    const toRaise = evaluateAlerts(rules, { subAccountId, rows, cards, now });
    if (toRaise.length === 0) return;
    const raised = await alerts.raise(toRaise, {
      at: new Date(now),
      teamRecipients: await deps.teamRecipients(),
    });
    if (raised.length > 0) {
      deps.logger.info({ subAccountId, alerts: raised.length }, 'alerts raised by the index sync');
    }
  };
}
