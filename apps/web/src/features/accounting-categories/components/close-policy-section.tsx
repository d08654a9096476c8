import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { ClosePolicy } from '@card-console/shared/api/close-policy';
import { centsToDollarInput, formatCents, parseDollarsToCents } from '@card-console/shared/money';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { apiProblem } from '../../../lib/api-error';
import { formatDateTime } from '../../../lib/format';
import { closePolicyQueryOptions } from '../api/get-close-policy';
import { useUpdateClosePolicy } from '../api/update-close-policy';
import { categoryLabel } from '../category-form';

/**
 * As `closePolicyUpdateSchema` bounds them; not imported, so its module's zod schemas stay out
 * of this screen's chunk (decision 0103).
 */
const RECEIPT_FROM_CENTS_MAX = 100_000_000_000;
const MEMO_CATEGORIES_MAX = 200;

/**
 * The month close's policy, on the chart of accounts (admins only): from what amount money moved
 * needs a receipt (empty: no receipt policy) and which categories' transactions need a memo.
 * "Needs attention" on Transactions counts what the policy still lacks. Read on its own, so a
 * policy that cannot load leaves the chart usable.
 */
export function ClosePolicySection({ categories }: { categories: AccountingCategory[] }) {
  const policy = useQuery(closePolicyQueryOptions());
  return (
    <section className="panel close-policy" aria-labelledby="close-policy-title">
      <h2 id="close-policy-title">Close policy</h2>
      <p className="muted">
        What a transaction whose money moved needs before the month closes. “Needs attention” on
        Transactions counts the ones still missing it.
      </p>
      {policy.data ? (
        // Starts from the policy in force; what the admin types stays while it is read again
        // (the form keeps the version it started from: a save names it).
        <ClosePolicyForm policy={policy.data} categories={categories} />
      ) : policy.isError ? (
        <p className="form-error" role="alert">
          The close policy could not be loaded: {policy.error.message}{' '}
          <button type="button" onClick={() => void policy.refetch()}>
            Try again
          </button>
        </p>
      ) : (
        <p className="muted">Loading the close policy…</p>
      )}
    </section>
  );
}

interface Errors {
  receipt?: string | undefined;
  memo?: string | undefined;
  form?: string | undefined;
}

const receiptText = (policy: Pick<ClosePolicy, 'receiptFromCents'>) =>
  policy.receiptFromCents === null ? '' : centsToDollarInput(policy.receiptFromCents);

/** A policy in words: "Receipts required from $100.00; memos required for 6100 Meals". */
function policyInWords(policy: ClosePolicy, categories: AccountingCategory[]): string {
  const receipts =
    policy.receiptFromCents === null
      ? 'No receipts required'
      : `Receipts required from ${formatCents(policy.receiptFromCents)}`;
  const names = policy.memoCategoryIds.map((id) => {
    const category = categories.find((c) => c.id === id);
    return category ? categoryLabel(category) : 'a category no longer in the chart';
  });
  return `${receipts}; ${names.length === 0 ? 'no memos required' : `memos required for ${names.join(', ')}`}`;
}

/** Who changed the policy and when, as " (ada@example.test on 9 Mar 2026, 10:00)". */
function changedBy(policy: ClosePolicy): string {
  if (!policy.updatedBy) return '';
  const when = policy.updatedAt ? ` on ${formatDateTime(policy.updatedAt)}` : '';
  return ` (${policy.updatedBy}${when})`;
}

function ClosePolicyForm({
  policy,
  categories,
}: {
  policy: ClosePolicy;
  categories: AccountingCategory[];
}) {
  const update = useUpdateClosePolicy();
  // The policy the form's values were made on: a save sends its version. A policy read again
  // meanwhile does not change it, nor what was typed, until the person reloads.
  const [base, setBase] = useState(policy);
  const [receipt, setReceipt] = useState(() => receiptText(policy));
  const [chosen, setChosen] = useState(() => new Set(policy.memoCategoryIds));
  const [errors, setErrors] = useState<Errors>({});
  const [saved, setSaved] = useState<string>();
  // Another admin's change, found when this one was refused (409): the policy as it is now.
  const [conflict, setConflict] = useState<ClosePolicy>();
  const receiptInput = useRef<HTMLInputElement>(null);
  // Current categories, and any the policy names that were archived since (kept until unticked).
  const offered = categories.filter((c) => !c.archived || base.memoCategoryIds.includes(c.id));
  // Ids the chart no longer has: still sent, so the BFF says what is wrong.
  const unknown = [...chosen].filter((id) => !categories.some((c) => c.id === id));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (update.isPending) return;
    const typed = receipt.trim();
    const parsed =
      typed === '' ? undefined : parseDollarsToCents(typed, { maxCents: RECEIPT_FROM_CENTS_MAX });
    const found: Errors = {
      receipt: parsed && !parsed.ok ? parsed.error : undefined,
      memo:
        chosen.size > MEMO_CATEGORIES_MAX
          ? `Choose at most ${MEMO_CATEGORIES_MAX} categories.`
          : undefined,
    };
    setErrors(found);
    setSaved(undefined);
    if (found.receipt || found.memo) {
      if (found.receipt) receiptInput.current?.focus();
      return;
    }
    try {
      const after = await update.mutateAsync({
        receiptFromCents: parsed?.ok ? parsed.cents : null,
        memoCategoryIds: [...chosen],
        version: base.version,
      });
      setBase(after);
      setSaved(
        `Saved. ${after.receiptFromCents === null ? 'No receipts required' : `Receipts required from ${formatCents(after.receiptFromCents)}`}; ${after.memoCategoryIds.length === 0 ? 'no memos required' : `memos required for ${after.memoCategoryIds.length} ${after.memoCategoryIds.length === 1 ? 'category' : 'categories'}`}.`,
      );
    } catch (error) {
      const current = apiProblem(error, 'close_policy_changed')?.current;
      if (current) setConflict(current);
      else setErrors({ form: error instanceof Error ? error.message : String(error) });
    }
  };

  /** The form as the policy is now: what was typed is replaced, at the person's request. */
  const reload = (current: ClosePolicy) => {
    setBase(current);
    setReceipt(receiptText(current));
    setChosen(new Set(current.memoCategoryIds));
    setErrors({});
    setSaved(undefined);
    setConflict(undefined);
    update.reset();
  };

  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
    setSaved(undefined);
    if (errors.memo || errors.form) setErrors({ ...errors, memo: undefined, form: undefined });
  };

  return (
    <form
      className="close-policy-form"
      aria-label="Close policy"
      onSubmit={(e) => void submit(e)}
      noValidate
    >
      <Field
        label="Receipt required from $"
        hint="Money moved of this amount or more needs a receipt. Leave empty for no receipt policy."
        error={errors.receipt}
        className="receipt-from"
      >
        {(control) => (
          <input
            {...control}
            ref={receiptInput}
            inputMode="decimal"
            autoComplete="off"
            placeholder="none"
            maxLength={20}
            value={receipt}
            onChange={(e) => {
              setReceipt(e.target.value);
              setSaved(undefined);
              if (errors.receipt || errors.form) {
                setErrors({ ...errors, receipt: undefined, form: undefined });
              }
            }}
          />
        )}
      </Field>
      <fieldset
        className="memo-categories"
        aria-describedby={errors.memo ? 'memo-categories-error' : undefined}
      >
        <legend>Memo required for</legend>
        {offered.length === 0 ? (
          <p className="muted">No accounting categories yet. Add them above to require memos.</p>
        ) : (
          <ul className="checkbox-list">
            {offered.map((c) => (
              <li key={c.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={chosen.has(c.id)}
                    onChange={(e) => toggle(c.id, e.target.checked)}
                  />{' '}
                  {categoryLabel(c)}
                  {c.archived ? ' (archived)' : ''}
                </label>
              </li>
            ))}
          </ul>
        )}
        {unknown.length > 0 ? (
          <p className="muted">
            {unknown.length === 1
              ? 'One category the policy names is no longer in the chart.'
              : `${unknown.length} categories the policy names are no longer in the chart.`}
          </p>
        ) : null}
        {errors.memo ? (
          <small id="memo-categories-error" className="field-error">
            {errors.memo}
          </small>
        ) : null}
      </fieldset>
      {base.updatedBy && base.updatedAt ? (
        <p className="muted">
          Last changed by {base.updatedBy} on {formatDateTime(base.updatedAt)}.
        </p>
      ) : (
        <p className="muted">The default policy: nobody has changed it yet.</p>
      )}
      <div className="actions">
        <button type="submit" className="primary" aria-disabled={update.isPending || undefined}>
          {update.isPending ? 'Saving…' : 'Save close policy'}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {saved ? <p className="notice">{saved}</p> : null}
      </div>
      {conflict ? (
        <div className="notice warn" role="alert">
          <p>
            Not saved: another admin changed the close policy while you were editing it
            {changedBy(conflict)}. It is now: {policyInWords(conflict, categories)}.
          </p>
          <p>
            What you entered is still in the form. Reload the policy to start again from it as it is
            now.
          </p>
          <button type="button" onClick={() => reload(conflict)}>
            Reload the policy
          </button>
        </div>
      ) : null}
      {errors.form ? (
        <p className="form-error" role="alert">
          Not saved: {errors.form}
        </p>
      ) : null}
    </form>
  );
}
