import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import type { Transaction } from '@card-console/shared/api/transactions';
import { localTimeZone } from '@card-console/shared/dates';
import { formatCurrencyCents } from '@card-console/shared/money';
import { moneyStateOf } from '@card-console/shared/money-definition';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { StatusBadge } from '../../../components/status-badge';
import { signedAs, TransactionAmount } from '../../../components/transaction-amount';
import { useDocumentTitle } from '../../../components/use-document-title';
import { useNarrow } from '../../../components/use-narrow';
import { formatDateTime } from '../../../lib/format';
import { notesQueryOptions } from '../api/get-notes';
import { fetchQueueNext, queueQuery, queueQueryOptions } from '../api/get-queue';
import { transactionQueryOptions } from '../api/get-transaction';
import { type TransactionsSearch, toIndexQuery } from '../transactions-search';
import { CardRef } from './card-ref';
import { MerchantRef } from './merchant-ref';
import { NotesPanel } from './notes-panel';
import { PolicyNeeds } from './policy-needs';
import { QueueNav } from './queue-nav';
import { ReceiptsPanel } from './receipts-panel';

interface Props {
  transaction: Transaction;
  /** The list this was opened from, so "back" reproduces it. */
  listSearch: TransactionsSearch;
  /** The sub accounts, to name the transaction's; undefined while they load. */
  subAccounts?: SubAccount[] | undefined;
}

/** A label and its value; left out when there is no value, rather than shown as "—". */
function Pair({ label, children }: { label: string; children: ReactNode }) {
  if (children === undefined || children === null || children === '') return null;
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/**
 * When the money posted, by the money definition: a row that moved (or went out and came back)
 * has posted; a pending one has not yet (its date is when it was authorised); a row that never
 * moved money (declined, released) never posts, so the line is left out.
 */
function postedText(t: Transaction): string | undefined {
  const state = moneyStateOf[t.status];
  if (state === 'posted' || state === 'returned') return formatDateTime(t.date);
  if (state === 'pending') return 'Not yet (pending)';
  return undefined;
}

/**
 * The sub account the transaction is in, by name: the index knows which (the card service's
 * transaction does not say); its id while the names load or when none matches.
 */
function subAccountName(id: string | undefined, subAccounts: SubAccount[] | undefined) {
  if (id === undefined) return undefined;
  return subAccounts?.find((s) => s.id === id)?.name ?? id;
}

/** "Airlines (4511)"; the code alone when it names no known category. */
function category(merchant: Transaction['merchant']): string | undefined {
  if (!merchant?.categoryCode) return undefined;
  const { categoryName: name, categoryCode: code } = merchant;
  return name ? `${name} (${code})` : code;
}

/** How long Save and next waits for the next row asked after the save before the one read ahead. */
const QUEUE_NEXT_WAIT_MS = 4_000;

/**
 * The review queue of the list a detail was opened from: where it stands, and what Save and next
 * does once the notes are saved (the queue, asked again with the save, names the next one that
 * still matches; after the last, the person is told so).
 */
function useQueue(transactionId: string, listSearch: TransactionsSearch) {
  const key = JSON.stringify(listSearch);
  const filtered = isFiltered(listSearch);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the search, by value
  const query = useMemo(
    () => queueQuery(toIndexQuery(listSearch, localTimeZone, Date.now()), transactionId),
    [key, transactionId],
  );
  const options = queueQueryOptions(query);
  // Asked for an unfiltered list too: it suggests the merchant's last category.
  const queue = useQuery(options);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [done, setDone] = useState<'last' | 'unknown'>();
  // The next one is read ahead, so Save and next shows it at once.
  const ahead = queue.data?.next?.id;
  useEffect(() => {
    if (!ahead) return;
    void queryClient.prefetchQuery(transactionQueryOptions(ahead));
    void queryClient.prefetchQuery(notesQueryOptions(ahead));
  }, [ahead, queryClient]);
  const next = async () => {
    // Asked after the save: the row after this one that still matches (not the set's count,
    // which the next screen asks beside its detail); the one read ahead if that fails or is
    // slow (the person waits seconds at most), and never "the last" when neither is known.
    const now = await fetchQueueNext(query, AbortSignal.timeout(QUEUE_NEXT_WAIT_MS)).catch(
      () => undefined,
    );
    const known = now ?? queue.data;
    const to = known?.next;
    if (!to) {
      setDone(known ? 'last' : 'unknown');
      return;
    }
    await navigate({
      to: '/transactions/$transactionId',
      params: { transactionId: to.id },
      search: listSearch,
    });
  };
  return { queue: queue.data, next: filtered ? next : undefined, done };
}

/**
 * Whether the list a detail was opened from is filtered: then it is a review queue. The whole
 * list unfiltered (and a link from elsewhere, which carries no filter) shows the detail alone.
 */
function isFiltered(search: TransactionsSearch): boolean {
  const { sort: _sort, dir: _dir, pages: _pages, by: _by, ...filter } = search;
  return Object.values(filter).some((value) => value !== undefined);
}

export function TransactionDetailScreen({ transaction: t, listSearch, subAccounts }: Props) {
  useDocumentTitle(`Transaction ${t.description}`);
  const original = t.originalCurrency;
  const queue = useQueue(t.id, listSearch);
  const narrow = useNarrow();
  const doneRef = useRef<HTMLParagraphElement>(null);
  const notes = (
    <>
      <PolicyNeeds transaction={t} />
      <NotesPanel
        transactionId={t.id}
        merchant={t.merchant?.description}
        suggested={queue.queue?.suggestedCategoryId}
        onNext={
          queue.next
            ? () => {
                void queue.next?.().then(() => doneRef.current?.focus());
              }
            : undefined
        }
      />
      <ReceiptsPanel key={t.id} transactionId={t.id} />
    </>
  );
  return (
    <section aria-labelledby="transaction-title">
      <div className="detail-top">
        <Link to="/transactions" search={listSearch}>
          ← Back to transactions
        </Link>
        {queue.next ? <QueueNav queue={queue.queue} listSearch={listSearch} /> : null}
      </div>
      <div className="screen-header">
        <h1 id="transaction-title" className="cut-heading">
          {t.description}
        </h1>
        <StatusBadge status={t.status} />
        {narrow ? (
          // On a phone the notes come first: the amount and the day stay in view above them.
          <p className="detail-summary">
            <TransactionAmount cents={t.amountCents} status={t.status} /> · {formatDateTime(t.date)}
          </p>
        ) : null}
      </div>
      {queue.done ? (
        <p className="notice queue-done" ref={doneRef} tabIndex={-1} role="status">
          {queue.done === 'last'
            ? 'Saved. That was the last transaction in this list: '
            : 'Saved. The next transaction in this list could not be read: '}
          <Link to="/transactions" search={listSearch}>
            back to the list
          </Link>
          .
        </p>
      ) : null}
      {narrow ? notes : null}
      <div className="detail-grid">
        <div className="panel">
          <h2>Amount</h2>
          <p className="big">
            <TransactionAmount cents={t.amountCents} status={t.status} />
          </p>
          <dl className="pairs">
            <Pair label="Original amount">
              {original?.code && original.amountCents !== undefined
                ? signedAs(
                    formatCurrencyCents(Math.abs(original.amountCents), original.code),
                    t.amountCents,
                    t.status,
                  )
                : original?.code}
            </Pair>
            <Pair label="Conversion rate">{original?.conversionRate?.toString()}</Pair>
            <Pair label="Decline reason">{t.declineReason}</Pair>
          </dl>
        </div>
        <div className="panel">
          <h2>Details</h2>
          <dl className="pairs">
            <Pair label="Card">
              {t.cardId ? <CardRef cardId={t.cardId} card={t.card} /> : undefined}
            </Pair>
            <Pair label="Sub account">
              {subAccountName(queue.queue?.subAccountId, subAccounts)}
            </Pair>
            <Pair label="Merchant">
              {t.merchant?.description ? (
                <MerchantRef descriptor={t.merchant.description} />
              ) : undefined}
            </Pair>
            <Pair label="Category">{category(t.merchant)}</Pair>
            <Pair label="Authorized">
              {t.authorizedAt ? formatDateTime(t.authorizedAt) : undefined}
            </Pair>
            <Pair label="Posted">{postedText(t)}</Pair>
            <Pair label="Created">{t.createdAt ? formatDateTime(t.createdAt) : undefined}</Pair>
            <Pair label="Reference number">
              {t.referenceNumber ? <span className="mono">{t.referenceNumber}</span> : undefined}
            </Pair>
            <Pair label="Transaction id">
              <span className="mono">{t.id}</span>
            </Pair>
          </dl>
        </div>
      </div>
      {narrow ? null : notes}
    </section>
  );
}
