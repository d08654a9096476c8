import type { Role } from '@card-console/shared/api/meta';
import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { formatCents, totalCents } from '@card-console/shared/money';
import { moneyWords, netCardSpendWords } from '@card-console/shared/money-definition';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { ListNotLoaded } from '../../../components/list-not-loaded';
import { useDocumentTitle } from '../../../components/use-document-title';
import { CreateSubAccountDialog } from './create-sub-account-dialog';

const money = (cents: number | undefined) => (cents === undefined ? '—' : formatCents(cents));

/** How many of `items` have no figure from the card service, in words ("" when every one has). */
function missingWords(items: SubAccount[], pick: (s: SubAccount) => number | undefined): string {
  const missing = items.filter((s) => pick(s) === undefined).length;
  return missing === 0 ? '' : `${missing} of ${items.length}`;
}

export function SubAccountsScreen({
  subAccounts,
  error,
  onRetry,
  busy = false,
  role,
}: {
  /** Every sub account; undefined until they arrive. */
  subAccounts: SubAccount[] | undefined;
  /** Why the list did not load: shown in its place, the header (and Create) kept. */
  error?: unknown;
  onRetry?: () => void;
  /** The list is being asked for (again). */
  busy?: boolean;
  role: Role;
}) {
  useDocumentTitle('Sub accounts');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | undefined>();
  const unknownTotals = subAccounts
    ? [
        ...(missingWords(subAccounts, (s) => s.balanceCents)
          ? [`balance: ${missingWords(subAccounts, (s) => s.balanceCents)}`]
          : []),
        ...(missingWords(subAccounts, (s) => s.spendCents)
          ? [`card spend: ${missingWords(subAccounts, (s) => s.spendCents)}`]
          : []),
      ].join('; ')
    : '';

  return (
    <section aria-labelledby="sub-accounts-title">
      <div className="screen-header">
        <h1 id="sub-accounts-title">Sub accounts</h1>
        {role === 'admin' ? (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Create sub account
          </button>
        ) : null}
      </div>
      {created ? (
        <p className="notice cut-notice" role="status">
          Created sub account “{created}”.
        </p>
      ) : null}
      {!subAccounts ? (
        <ListNotLoaded error={error} busy={busy} onRetry={onRetry} />
      ) : subAccounts.length === 0 ? (
        <p className="empty">No sub accounts yet.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="sub-accounts-table">
              <thead>
                <tr>
                  <th scope="col" className="col-name">
                    Name
                  </th>
                  <th scope="col" className="num">
                    Balance
                  </th>
                  <th scope="col" className="num" title={moneyWords.card.includes}>
                    Card spend
                  </th>
                  <th scope="col" className="col-links">
                    <span className="visually-hidden">Links</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {subAccounts.map((s) => (
                  <tr key={s.id}>
                    {/* A long name wraps in its cell, whole (a word too long breaks anywhere). */}
                    <th scope="row" className="long-text">
                      {s.name}
                    </th>
                    <td className="num" data-label="Balance">
                      {money(s.balanceCents)}
                    </td>
                    <td className="num" data-label="Card spend">
                      {money(s.spendCents)}
                    </td>
                    <td className="col-links">
                      <Link
                        to="/transactions"
                        search={{ subAccountId: s.id }}
                        aria-label={`Transactions of ${s.name}`}
                      >
                        Transactions
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">Total ({subAccounts.length})</th>
                  <td className="num" data-label="Balance" data-testid="total-balance">
                    {money(totalCents(subAccounts.map((s) => s.balanceCents)))}
                  </td>
                  <td className="num" data-label="Card spend" data-testid="total-spend">
                    {money(totalCents(subAccounts.map((s) => s.spendCents)))}
                  </td>
                  <td />
                </tr>
              </tfoot>
            </table>
          </div>
          {unknownTotals ? (
            <p className="muted" role="note">
              No total where a sub account has no figure ({unknownTotals}): the card service did not
              report it, and a total without it would be wrong.
            </p>
          ) : null}
          <p className="muted">
            As the card service reports them, since each sub account opened. Balance: the money that
            moved (settled, refunded and disputed rows, funding and payments without a card
            included). {netCardSpendWords}
          </p>
        </>
      )}
      {creating ? (
        <CreateSubAccountDialog
          onClose={() => setCreating(false)}
          onCreated={(c) => {
            setCreating(false);
            setCreated(c.name);
          }}
        />
      ) : null}
    </section>
  );
}
