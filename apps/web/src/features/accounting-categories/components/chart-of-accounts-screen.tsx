import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { useState } from 'react';
import { useDocumentTitle } from '../../../components/use-document-title';
import { useCreateAccountingCategory } from '../api/create-accounting-category';
import { categoryLabel } from '../category-form';
import { CategoryForm } from './category-form';
import { CategoryRow } from './category-row';
import { ChartImport } from './chart-import';
import { ClosePolicySection } from './close-policy-section';
import { MerchantRulesSection } from './merchant-rules-section';

/**
 * The chart of accounts admins keep: the accounting categories finance books transactions to,
 * added one by one or imported from the books' CSV, and the merchant rules that book a
 * merchant's new transactions. Categories are archived rather than deleted, so the
 * transactions that have one keep it.
 */
/**
 * The chart of accounts: admins keep it (add, import, edit, archive, merchant rules, the close
 * policy); finance, who book transactions to it, read it (`readOnly`): the categories alone.
 */
export function ChartOfAccountsScreen({
  categories,
  readOnly = false,
}: {
  categories: AccountingCategory[];
  readOnly?: boolean;
}) {
  useDocumentTitle('Chart of accounts');
  const create = useCreateAccountingCategory();
  const [editing, setEditing] = useState<string>();
  const [result, setResult] = useState<{ message: string; failed?: boolean }>();
  // A new form (empty, focused) after each category added.
  const [added, setAdded] = useState(0);
  const onResult = (message: string, failed?: boolean) => setResult({ message, failed });

  return (
    <section aria-labelledby="chart-title" className="chart-of-accounts">
      <div className="screen-header">
        <h1 id="chart-title">Chart of accounts</h1>
      </div>
      <p className="muted">
        The accounting categories finance books transactions to. An archived category stays on the
        transactions that have it but is no longer offered for others.
      </p>
      {readOnly ? (
        <p className="muted">Admins keep the chart: ask one to add or change a category.</p>
      ) : (
        <>
          <section className="panel" aria-labelledby="add-category-title">
            <h2 id="add-category-title">Add category</h2>
            <CategoryForm
              key={added}
              label="Add category"
              className="add-category-form"
              initial={{ code: '', name: '' }}
              submitLabel="Add category"
              autoFocus={added > 0}
              onSave={(values) => create.mutateAsync(values)}
              onSaved={(category) => {
                setAdded((n) => n + 1);
                onResult(`Added ${categoryLabel(category)}.`);
              }}
            />
          </section>
          <section className="panel">
            <ChartImport onResult={onResult} />
          </section>
        </>
      )}
      {/* Always in the page, so each new result is announced. */}
      <div role="status" aria-live="polite">
        {result ? (
          <p className={result.failed ? 'form-error' : 'notice cut-notice'}>{result.message}</p>
        ) : null}
      </div>
      {categories.length === 0 ? (
        <p className="empty">
          {readOnly
            ? 'No accounting categories yet.'
            : 'No accounting categories yet. Add the first one above.'}
        </p>
      ) : (
        <div className="table-wrap">
          <table className="categories-table">
            <caption className="visually-hidden">Accounting categories</caption>
            <thead>
              <tr>
                <th scope="col" className="col-code">
                  Code
                </th>
                <th scope="col">Name</th>
                <th scope="col" className="col-status">
                  Status
                </th>
                {readOnly ? null : (
                  <th scope="col" className="col-actions">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {categories.map((c) => (
                <CategoryRow
                  key={c.id}
                  readOnly={readOnly}
                  category={c}
                  editing={editing === c.id}
                  onEdit={(on) => setEditing(on ? c.id : undefined)}
                  onResult={onResult}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {readOnly ? null : (
        <>
          <MerchantRulesSection categories={categories} />
          <ClosePolicySection categories={categories} />
        </>
      )}
    </section>
  );
}
