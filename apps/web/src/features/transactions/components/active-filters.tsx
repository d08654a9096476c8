import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { formatCents } from '@card-console/shared/money';
import { useQuery } from '@tanstack/react-query';
import { statusLabel } from '../../../components/status-badge';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { categoriesQueryOptions } from '../api/get-categories';
import { dollarsToCents, filterCount, type TransactionsSearch } from '../transactions-search';
import { accountLabel } from './account-label';

interface Chip {
  key: string;
  label: string;
  /** The search without this one value. */
  without: Partial<TransactionsSearch>;
}

const drop = <T,>(list: T[] | undefined, value: T) => {
  const rest = list?.filter((v) => v !== value);
  return rest && rest.length > 0 ? rest : undefined;
};

/**
 * What narrows the list, one removable chip per value (a status, a card, a category, a
 * merchant, a card's owner or team, a decline reason, the amounts, the words, the notes'
 * review, accounting categories and tags), and "Clear filters". Category codes are named once
 * the catalog is in (fetched when a category is set), accounting categories once the chart of
 * accounts is.
 */
export function ActiveFilters({
  search,
  cards,
  subAccounts,
  accounts,
  onChange,
}: {
  search: TransactionsSearch;
  cards: CardChoices;
  subAccounts: SubAccount[];
  /** The chart of accounts; undefined while it loads. */
  accounts: AccountingCategory[] | undefined;
  onChange: (next: TransactionsSearch) => void;
}) {
  const named = search.category !== undefined || search.categoryGroup !== undefined;
  const catalog = useQuery({ ...categoriesQueryOptions(), enabled: named });
  if (filterCount(search) === 0) return null;
  const codeName = new Map(catalog.data?.categories.map((c) => [c.code, c.name]));
  const groupName = new Map(catalog.data?.groups.map((g) => [g.key, g.label]));
  const cardName = new Map(cards.cards.map((c) => [c.id, c.name]));
  const amount = (typed: string | undefined) =>
    typed === undefined ? '' : formatCents(dollarsToCents(typed) ?? 0);
  const chips: Chip[] = [
    ...(search.q ? [{ key: 'q', label: `“${search.q}”`, without: { q: undefined } }] : []),
    ...(search.status ?? []).map((s) => ({
      key: `status:${s}`,
      label: `Status: ${statusLabel(s)}`,
      without: { status: drop(search.status, s) },
    })),
    ...(search.cardId ?? []).map((id) => ({
      key: `card:${id}`,
      label: `Card: ${cardName.get(id) ?? id}`,
      without: { cardId: drop(search.cardId, id) },
    })),
    ...(search.categoryGroup ?? []).map((key) => ({
      key: `group:${key}`,
      label: `Category: ${groupName.get(key) ?? key}`,
      without: { categoryGroup: drop(search.categoryGroup, key) },
    })),
    ...(search.category ?? []).map((code) => ({
      key: `category:${code}`,
      label: `Category: ${code}${codeName.has(code) ? ` ${codeName.get(code)}` : ''}`,
      without: { category: drop(search.category, code) },
    })),
    ...(search.merchant ?? []).map((m) => ({
      key: `merchant:${m}`,
      label: `Merchant: ${m}`,
      without: { merchant: drop(search.merchant, m) },
    })),
    ...(search.merchantName ?? []).map((m) => ({
      key: `merchantName:${m}`,
      label: `Merchant: ${m}`,
      without: { merchantName: drop(search.merchantName, m) },
    })),
    ...(search.owner ?? []).map((name) => ({
      key: `owner:${name}`,
      label: `Owner: ${name}`,
      without: { owner: drop(search.owner, name) },
    })),
    ...(search.team ?? []).map((name) => ({
      key: `team:${name}`,
      label: `Team: ${name}`,
      without: { team: drop(search.team, name) },
    })),
    ...(search.declineReason ?? []).map((r) => ({
      key: `reason:${r}`,
      label: `Decline reason: ${r}`,
      without: { declineReason: drop(search.declineReason, r) },
    })),
    ...(search.noDeclineReason
      ? [{ key: 'no-reason', label: 'No decline reason', without: { noDeclineReason: undefined } }]
      : []),
    ...(search.card
      ? [
          {
            key: 'card-presence',
            label: search.card === 'with' ? 'With a card' : 'Without a card',
            without: { card: undefined },
          },
        ]
      : []),
    ...(search.review
      ? [
          {
            key: 'review',
            label: search.review === 'reviewed' ? 'Reviewed' : 'Unreviewed',
            without: { review: undefined },
          },
        ]
      : []),
    ...(search.receipt
      ? [
          {
            key: 'receipt',
            label: search.receipt === 'attached' ? 'Receipt attached' : 'Receipt missing',
            without: { receipt: undefined },
          },
        ]
      : []),
    ...(search.memo
      ? [
          {
            key: 'memo',
            label: search.memo === 'written' ? 'Memo written' : 'Memo missing',
            without: { memo: undefined },
          },
        ]
      : []),
    ...(search.account ?? []).map((id) => ({
      key: `account:${id}`,
      label: `Accounting category: ${accountLabel(id, accounts)}`,
      without: { account: drop(search.account, id) },
    })),
    ...(search.tag ?? []).map((tag) => ({
      key: `tag:${tag}`,
      label: `Tag: ${tag}`,
      without: { tag: drop(search.tag, tag) },
    })),
    ...(search.min || search.max
      ? [
          {
            key: 'amount',
            label: search.min
              ? search.max
                ? `Amount ${amount(search.min)} to ${amount(search.max)}`
                : `Amount from ${amount(search.min)}`
              : `Amount up to ${amount(search.max)}`,
            without: { min: undefined, max: undefined },
          },
        ]
      : []),
  ];
  const clear: TransactionsSearch = {
    subAccountId: subAccounts.some((s) => s.id === search.subAccountId)
      ? search.subAccountId
      : undefined,
    sort: search.sort,
    dir: search.dir,
    by: search.by,
  };
  return (
    <ul className="active-filters" aria-label="Filters set">
      {chips.map((chip) => (
        <li key={chip.key}>
          <button
            type="button"
            className="chip"
            title={`Remove: ${chip.label}`}
            aria-label={`Remove filter ${chip.label}`}
            onClick={() => onChange({ ...search, ...chip.without, pages: undefined })}
          >
            <span className="chip-label">{chip.label}</span> <span aria-hidden="true">×</span>
          </button>
        </li>
      ))}
      <li>
        <button type="button" className="link-button" onClick={() => onChange(clear)}>
          Clear filters
        </button>
      </li>
    </ul>
  );
}
