import type { IndexQuery, IndexTransaction } from '@card-console/shared/api/transaction-index';
import { centsToDollarInput, parseDollarsToCents } from '@card-console/shared/money';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Field } from '../../../components/field';
import { indexTransactionsQueryOptions } from '../../transactions/api/get-index-transactions';
import type { InboxItem } from '../api/get-inbox';
import { type TransactionFacts, TransactionSummary, transactionLabel } from './transaction-summary';

/** Rows a search offers: enough to spot the right one, few enough to read on a phone. */
const RESULTS = 5;

interface Props {
  item: InboxItem;
  /** The transaction being attached, if any: every choice waits meanwhile. */
  busy: boolean;
  onPick: (t: IndexTransaction) => void;
}

const factsOf = (t: IndexTransaction): TransactionFacts => ({
  description: t.description,
  merchant: t.merchant?.description,
  at: t.date,
  amountCents: t.amountCents,
  status: t.status,
});

/**
 * Another transaction for a receipt, found in the index by words and amount (what was read off
 * it to start with): the first few rows, newest first, each with "Attach".
 */
export function PickTransaction({ item, busy, onPick }: Props) {
  const [words, setWords] = useState('');
  const total = item.read?.totalCents;
  const [amount, setAmount] = useState(total === undefined ? '' : centsToDollarInput(total));
  const [amountError, setAmountError] = useState<string>();
  const [asked, setAsked] = useState<IndexQuery>();
  const results = useInfiniteQuery({
    ...indexTransactionsQueryOptions(asked ?? {}),
    enabled: asked !== undefined,
  });
  const rows = results.data?.pages[0]?.items.slice(0, RESULTS);

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    let cents: number | undefined;
    if (amount.trim() !== '') {
      const parsed = parseDollarsToCents(amount, { allowNegative: true });
      if (!parsed.ok) {
        setAmountError(parsed.error);
        return;
      }
      cents = Math.abs(parsed.cents);
    }
    setAmountError(undefined);
    const q = words.trim();
    setAsked({
      ...(q ? { q } : {}),
      ...(cents === undefined ? {} : { minCents: String(cents), maxCents: String(cents) }),
      limit: String(RESULTS),
    });
  };

  return (
    <div className="rinbox-pick">
      <form
        aria-label={`Find the transaction of ${item.fileName}`}
        className="rinbox-pick-form"
        onSubmit={search}
      >
        <Field label="Search words" className="rinbox-pick-words">
          {(control) => (
            <input
              {...control}
              type="search"
              value={words}
              maxLength={200}
              placeholder="Merchant, description…"
              onChange={(e) => setWords(e.target.value)}
            />
          )}
        </Field>
        <Field label="Amount (USD)" error={amountError} className="rinbox-pick-amount">
          {(control) => (
            <span className="money-input">
              <span className="money-prefix" aria-hidden="true">
                $
              </span>
              <input
                {...control}
                value={amount}
                inputMode="decimal"
                onChange={(e) => setAmount(e.target.value)}
              />
            </span>
          )}
        </Field>
        <button type="submit">Search</button>
      </form>
      <div role="status" className="rinbox-pick-state">
        {asked === undefined ? null : results.isFetching && !rows ? (
          <p className="muted">Searching…</p>
        ) : results.error && !rows ? (
          <p className="form-error">Could not search: {results.error.message}</p>
        ) : rows && rows.length === 0 ? (
          <p className="muted">No transaction matches. Try fewer words, or leave the amount out.</p>
        ) : null}
      </div>
      {rows && rows.length > 0 ? (
        <ul className="rinbox-candidates" aria-label={`Transactions found for ${item.fileName}`}>
          {rows.map((t) => (
            <li key={`${t.subAccountId}/${t.id}`} className="rinbox-suggestion">
              <div className="rinbox-suggestion-about">
                <TransactionSummary t={factsOf(t)} />
                {t.notes && t.notes.receipts > 0 ? (
                  <span className="muted rinbox-tx-receipts">
                    Has {t.notes.receipts} receipt{t.notes.receipts === 1 ? '' : 's'} already
                  </span>
                ) : null}
              </div>
              <button
                type="button"
                aria-label={`Attach to ${transactionLabel(factsOf(t))}`}
                aria-disabled={busy || undefined}
                onClick={() => {
                  if (!busy) onPick(t);
                }}
              >
                Attach
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
