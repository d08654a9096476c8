import type { Card } from '@card-console/shared/api/cards';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { IndexCard } from '@card-console/shared/api/transaction-index';
import { formatCents } from '@card-console/shared/money';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { statusLabel } from '../../../components/status-badge';
import { TransactionAmount } from '../../../components/transaction-amount';
import { formatDate, formatShortDateTime } from '../../../lib/format';
import { subAccountsQueryOptions } from '../../sub-accounts/api/get-sub-accounts';
import { cardMoneyQueryOptions } from '../api/get-card-money';

const WINDOW_WORDS: Record<string, string> = {
  daily: 'today',
  weekly: 'this week',
  monthly: 'this month',
  yearly: 'this year',
};

/** Spent of a limit as a bar: amber from 80 %, red from 95 %; full when over. */
export function SpendMeter({
  spentCents,
  limitCents,
  title,
}: {
  spentCents: number;
  limitCents: number;
  title?: string;
}) {
  return (
    <meter
      className="spend-meter"
      min={0}
      max={limitCents}
      low={limitCents * 0.8}
      high={limitCents * 0.95}
      optimum={0}
      value={Math.min(spentCents, limitCents)}
      aria-label={`Spent ${formatCents(spentCents)} of ${formatCents(limitCents)}`}
      title={title}
    />
  );
}

/**
 * What the card has spent of its utilisation limit in the limit's current window (a bar and
 * the figures), or why that cannot be said.
 */
export function CardSpend({ money, card }: { money: IndexCard | undefined; card: Card }) {
  const u = money?.utilization;
  if (!card.utilizationLimit) return null;
  if (!money) return <p className="muted">Reading the card's spend…</p>;
  if (!u?.window || u.spentCents === undefined) {
    return (
      <p className="muted">
        Spend against this limit is unknown: the card service does not say which days a “
        {u?.preset ?? 'limit'}” limit counts.
      </p>
    );
  }
  const limit = u.limitCents;
  // Below 0 when more came back than was charged: none of the limit is used.
  const share = limit ? Math.min(Math.max(u.spentCents / limit, 0), 1) : 0;
  const words = WINDOW_WORDS[u.preset ?? ''] ?? 'in this window';
  return (
    <div className="card-spend">
      <p>
        Spent {words}: <strong>{formatCents(u.spentCents)}</strong>
        {limit === undefined ? '' : ` of ${formatCents(limit)}`}
        {limit !== undefined && u.spentCents > limit ? ' (over the limit)' : ''}
        {u.spentCents < 0 ? ' (more refunded than charged)' : ''}
      </p>
      {limit === undefined ? null : (
        <SpendMeter
          spentCents={u.spentCents}
          limitCents={limit}
          title={`${Math.round(share * 100)}% of the limit`}
        />
      )}
      <p className="muted">
        {formatDate(u.window.fromDay)} – {formatDate(u.window.toDay)} ({u.window.timeZone}); pending
        and settled payments, refunds and disputes count.
      </p>
    </div>
  );
}

/** The sub accounts the card spends from and its latest transactions, from the index. */
export function CardActivity({ cardId }: { cardId: string }) {
  const { data: money, isError, error } = useQuery(cardMoneyQueryOptions(cardId));
  const { data: subAccounts } = useQuery(subAccountsQueryOptions());
  const names = new Map((subAccounts ?? []).map((s: SubAccount) => [s.id, s.name]));
  if (isError)
    return <p className="form-error">The card's transactions could not be read: {error.message}</p>;
  if (!money) return <p className="muted">Reading the card's transactions…</p>;
  return (
    <div className="panel card-activity">
      <h2>Activity</h2>
      <dl className="pairs">
        <dt>Spends from</dt>
        <dd>
          {money.subAccountIds.length === 0
            ? 'No transactions yet'
            : money.subAccountIds.map((id) => names.get(id) ?? id).join(', ')}
        </dd>
      </dl>
      <h3>Latest transactions</h3>
      {money.recent.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ul className="recent-transactions">
          {money.recent.map((t) => (
            <li key={`${t.subAccountId}\u0000${t.id}`}>
              <time dateTime={t.date}>{formatShortDateTime(t.date)}</time>{' '}
              <Link to="/transactions/$transactionId" params={{ transactionId: t.id }}>
                {t.description}
              </Link>{' '}
              <span className="recent-amount">
                <TransactionAmount cents={t.amountCents} status={t.status} />
                {t.status === 'settled' || t.status === 'declined' ? null : (
                  <span className="muted recent-status">{statusLabel(t.status)}</span>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function useCardMoney(cardId: string) {
  return useQuery(cardMoneyQueryOptions(cardId)).data;
}
