import type { Card } from '@card-console/shared/api/cards';
import type { CardsMoney } from '@card-console/shared/api/transaction-index';
import { formatCents } from '@card-console/shared/money';
import { useQueries, useQuery } from '@tanstack/react-query';
import { subAccountsQueryOptions } from '../../sub-accounts/api/get-sub-accounts';
import { cardBatches, cardsMoneyQueryOptions } from '../api/get-cards-money';
import { SpendMeter } from './card-money';

type CardMoney = CardsMoney['cards'][number];

/**
 * The money of the cards a list shows, from the index (a read per 100 cards), and the sub
 * accounts' names: `of(cardId)` is undefined until its read answers.
 */
export function useCardsMoney(cards: readonly Card[]) {
  const batches = cardBatches(cards.map((c) => c.id));
  const reads = useQueries({ queries: batches.map((ids) => cardsMoneyQueryOptions(ids)) });
  const byCard = new Map<string, CardMoney>();
  for (const read of reads)
    for (const card of read.data?.cards ?? []) byCard.set(card.cardId, card);
  // The sub accounts' names, once a card is known to spend from one.
  const { data: subAccounts } = useQuery({
    ...subAccountsQueryOptions(),
    enabled: [...byCard.values()].some((c) => c.subAccountIds.length > 0),
  });
  const names = new Map((subAccounts ?? []).map((s) => [s.id, s.name]));
  return {
    of: (cardId: string) => byCard.get(cardId),
    subAccountName: (id: string) => names.get(id) ?? id,
    failed: reads.some((r) => r.isError),
  };
}

/** The sub accounts a card's transactions are in, by name. */
export function SpendsFrom({
  money,
  name,
}: {
  money: CardMoney | undefined;
  name: (id: string) => string;
}) {
  if (!money) return <span className="muted">…</span>;
  if (money.subAccountIds.length === 0) return <span className="muted">No transactions</span>;
  return <span>{money.subAccountIds.map(name).join(', ')}</span>;
}

/**
 * What a card has spent of its utilisation limit in the limit's current window, as a bar,
 * when the index measured it against the limit the row shows (a limit changed since is not
 * measured against the old one: the row then shows no bar until the next read).
 */
export function SpendBar({ card, money }: { card: Card; money: CardMoney | undefined }) {
  const live = card.utilizationLimit;
  const u = money?.utilization;
  if (!live?.limitCents || !u?.window || u.spentCents === undefined) return null;
  if (u.limitCents !== live.limitCents || u.preset !== live.preset) return null;
  const limit = live.limitCents;
  return (
    <span className="list-spend">
      <SpendMeter spentCents={u.spentCents} limitCents={limit} />
      <span className="muted">
        {formatCents(u.spentCents)} spent{u.spentCents > limit ? ' (over)' : ''}
        {u.spentCents < 0 ? ' (more refunded)' : ''}
      </span>
    </span>
  );
}
