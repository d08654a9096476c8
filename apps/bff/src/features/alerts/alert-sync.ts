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
// - balance: the sub account's balance from the card service's sub-account list as the app keeps
//   it (`sub-account-list.ts`: read at most once per refresh age, shared with the index's "all
//   sub accounts" reads, no walk of its own), at each sync of the sub account whether or not it
//   wrote rows; once per sub account and UTC day (the key).
import { netCardSpendCents } from '@card-console/shared/money-definition';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { CallContext } from '../../upstream/client';
import type { CardDirectory } from '../cards';
import type { IndexRowsWritten } from '../transaction-index';
import { currentUtilizationWindow } from '../transaction-index';
import { type AlertToRaise, type CardState, evaluateAlerts } from './alert-evaluator';
import type { AlertStores } from './alert-store';

export interface AlertSyncDeps {
  stores: AlertStores;
  cardDirectory: Pick<CardDirectory, 'ready' | 'label' | 'utilizationLimit'>;
  clock: Clock;
  logger: Pick<Logger, 'info'>;
  /**
   * Each sub account's balance in cents and its name, by id, as the kept sub-account list has
   * them (the walk's context given); without it balance rules raise nothing. The name is the
   * alert's ("Operations balance under $500.00", not "A sub account …").
   */
  subAccountBalances?: (
    ctx: CallContext,
  ) => Promise<ReadonlyMap<string, { balanceCents: number; name?: string }>>;
  /**
   * Who may be alerted (the people directory's enabled, signed-up people): a team rule's
   * recipients, and a personal rule's owner must be one of them to be told anything.
   */
  teamRecipients: () => readonly string[] | Promise<readonly string[]>;
  /** Emails one recipient gets one by one in an hour (ALERT_EMAILS_PER_HOUR); unset: the default. */
  emailsPerHour?: number;
  /**
   * The merchant each descriptor names (the index's grouping, an admin's name first), so an
   * alert says "at Pine Telecom", not "TST* PINE TELECOM BOSTON MA"; without it, the text.
   */
  merchantNames?: (
    descriptors: readonly string[],
  ) => Promise<ReadonlyMap<string, { name: string }>>;
}

/** Each transaction alert's merchant named as the index names it (best effort: a failure keeps the text). */
async function withMerchantNames(
  toRaise: AlertToRaise[],
  merchantNames: AlertSyncDeps['merchantNames'],
): Promise<AlertToRaise[]> {
  const texts = [
    ...new Set(
      toRaise.flatMap((a) =>
        'transaction' in a.payload && a.payload.transaction.merchant !== undefined
          ? [a.payload.transaction.merchant]
          : [],
      ),
    ),
  ];
  if (!merchantNames || texts.length === 0) return toRaise;
  const names = await merchantNames(texts).catch(() => new Map<string, { name: string }>());
  return toRaise.map((a) => {
    if (!('transaction' in a.payload)) return a;
    const text = a.payload.transaction.merchant;
    const name = text === undefined ? undefined : names.get(text)?.name;
    if (!name) return a;
    return {
      ...a,
      payload: { ...a.payload, transaction: { ...a.payload.transaction, merchantName: name } },
    };
  });
}

/** The index sync's `rowsWritten`: evaluates the enabled rules over the rows and raises. */
export function raiseAlertsOnSync(deps: AlertSyncDeps): IndexRowsWritten {
  return async ({ subAccountId, ctx, rows, store }) => {
    const alerts = await deps.stores.alerts();
    const inScope = (await alerts.enabledRules()).filter(
      (rule) => rule.subAccountId === undefined || rule.subAccountId === subAccountId,
    );
    const balanceRules = deps.subAccountBalances
      ? inScope.filter((rule) => rule.kind === 'balance_below')
      : [];
    const rules = rows.length === 0 ? [] : inScope.filter((r) => r.kind !== 'balance_below');
    if (rules.length === 0 && balanceRules.length === 0) return;
    const balance =
      balanceRules.length > 0 && deps.subAccountBalances
        ? (await deps.subAccountBalances(ctx)).get(subAccountId)
        : undefined;
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
      const spent = await store.summary({ cardIds: [cardId], from: window.from, to: window.to });
      windows.set(cardId, {
        limitCents,
        window: { fromDay: window.fromDay, toDay: window.toDay, timeZone: window.timeZone },
        // Card spend by the definition (docs/money.md): charges less refunds, what a limit counts.
        spentCents: netCardSpendCents(spent.buckets),
      });
    }
    for (const [cardId, utilisation] of windows) {
      const card = cards.get(cardId);
      if (card) cards.set(cardId, { ...card, utilisation });
    }

    const evaluated = evaluateAlerts([...rules, ...balanceRules], {
      subAccountId,
      rows,
      cards,
      now,
      ...(balance === undefined ? {} : { balanceCents: balance.balanceCents }),
      ...(balance?.name === undefined ? {} : { subAccountName: balance.name }),
    });
    if (evaluated.length === 0) return;
    const toRaise = await withMerchantNames(evaluated, deps.merchantNames);
    // Everyone who may be alerted: a team rule's recipients, and whom a personal rule may reach.
    const people = await deps.teamRecipients();
    const raised = await alerts.raise(toRaise, {
      at: new Date(now),
      teamRecipients: people,
      activePeople: people,
      ...(deps.emailsPerHour === undefined ? {} : { emailsPerHour: deps.emailsPerHour }),
    });
    if (raised.length > 0) {
      deps.logger.info({ subAccountId, alerts: raised.length }, 'alerts raised by the index sync');
    }
  };
}
