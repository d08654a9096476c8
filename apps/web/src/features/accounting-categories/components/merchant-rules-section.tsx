import type {
  AccountingCategory,
  MerchantRule,
} from '@card-console/shared/api/accounting-categories';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorState } from '../../../components/error-state';
import { Loading } from '../../../components/loading';
import { formatDateTime } from '../../../lib/format';
import { useDeleteMerchantRule } from '../api/delete-merchant-rule';
import { merchantRulesQueryOptions } from '../api/get-merchant-rules';
import { categoryLabel } from '../category-form';
import { MerchantRuleForm } from './merchant-rule-form';

/** What happened, for the section's status line (`failed` when it did not); none to clear it. */
type OnResult = (message: string | undefined, failed?: boolean) => void;

/**
 * Merchant rules: a merchant's transactions indexed from now on are booked to a category
 * (only those nobody has written notes on). Admins add and remove them; removing one leaves the
 * notes it made.
 */
export function MerchantRulesSection({ categories }: { categories: AccountingCategory[] }) {
  const rules = useQuery(merchantRulesQueryOptions());
  const [result, setResult] = useState<{ message: string; failed?: boolean }>();
  const onResult: OnResult = (message, failed) =>
    setResult(message === undefined ? undefined : { message, failed });
  return (
    <section className="panel merchant-rules" aria-labelledby="merchant-rules-title">
      <h2 id="merchant-rules-title" tabIndex={-1}>
        Merchant rules
      </h2>
      <p className="muted">
        A rule books the transactions that arrive from now on at this merchant to a category,
        however the card networks write it (“SQ *ACME FUEL”, “ACME FUEL #12”), unless someone has
        already written their notes. Transactions already in the list keep theirs.
      </p>
      <MerchantRuleForm categories={categories} onResult={onResult} />
      {/* Always in the page, so each new result is announced. */}
      <div role="status" aria-live="polite">
        {result ? (
          <p className={result.failed ? 'form-error' : 'notice cut-notice'}>{result.message}</p>
        ) : null}
      </div>
      {rules.error && !rules.data ? (
        <ErrorState error={rules.error} onRetry={() => void rules.refetch()} />
      ) : !rules.data ? (
        <Loading label="Loading merchant rules…" />
      ) : rules.data.length === 0 ? (
        <p className="empty">No merchant rules yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="rules-table">
            <caption className="visually-hidden">Merchant rules</caption>
            <thead>
              <tr>
                <th scope="col">Merchant</th>
                <th scope="col">Books to</th>
                <th scope="col" className="col-added">
                  Added
                </th>
                <th scope="col" className="col-actions">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.data.map((rule) => (
                <RuleRow key={rule.id} rule={rule} categories={categories} onResult={onResult} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function RuleRow({
  rule,
  categories,
  onResult,
}: {
  rule: MerchantRule;
  categories: AccountingCategory[];
  onResult: OnResult;
}) {
  const remove = useDeleteMerchantRule();
  const category = categories.find((c) => c.id === rule.categoryId);
  const booksTo = category
    ? `${categoryLabel(category)}${category.archived ? ' (archived)' : ''}`
    : 'A category no longer in the chart';
  return (
    <tr>
      <th scope="row" className="rule-merchant">
        {rule.merchant}
      </th>
      <td className="rule-category">{booksTo}</td>
      <td className="col-added muted">
        {rule.createdBy}, {formatDateTime(rule.createdAt)}
      </td>
      <td className="col-actions">
        <button
          type="button"
          aria-label={`Remove the rule for ${rule.merchant}`}
          aria-disabled={remove.isPending || undefined}
          onClick={() => {
            if (remove.isPending) return;
            onResult(undefined);
            remove.mutate(rule.id, {
              onSuccess: () => {
                onResult(
                  `Removed the rule for ${rule.merchant}. Transactions it booked keep their category.`,
                );
                // Its row and button are gone: the focus goes to the section.
                document.getElementById('merchant-rules-title')?.focus();
              },
              onError: (error) =>
                onResult(`Removing the rule for ${rule.merchant} failed: ${error.message}`, true),
            });
          }}
        >
          Remove
        </button>
      </td>
    </tr>
  );
}
