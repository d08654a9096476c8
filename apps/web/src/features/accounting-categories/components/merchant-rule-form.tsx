import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { type FormEvent, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { isApiError } from '../../../lib/api-error';
import { useCreateMerchantRule } from '../api/create-merchant-rule';
import { categoryLabel } from '../category-form';

interface Props {
  categories: AccountingCategory[];
  /** What was added; undefined clears what was said before. */
  onResult: (message: string | undefined) => void;
}

type Errors = Partial<Record<'merchant' | 'category' | 'form', string>>;

/**
 * A new rule: the merchant as the transactions show it, and the category its new transactions
 * are booked to. A merchant that has a rule already (409) is said under its field.
 */
export function MerchantRuleForm({ categories, onResult }: Props) {
  const create = useCreateMerchantRule();
  const [merchant, setMerchant] = useState('');
  const [categoryId, setCategoryId] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const merchantRef = useRef<HTMLInputElement>(null);
  const categoryRef = useRef<HTMLSelectElement>(null);
  const offered = categories.filter((c) => !c.archived);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    onResult(undefined);
    const found: Errors = {};
    const typed = merchant.trim();
    if (typed === '') found.merchant = 'Enter the merchant as its transactions show it.';
    else if (typed.length > 200) found.merchant = 'Use at most 200 characters.';
    else if (/[\p{Cc}\p{Cs}]/u.test(typed)) found.merchant = 'Remove the control characters.';
    if (categoryId === '') found.category = 'Choose the category to book it to.';
    setErrors(found);
    if (found.merchant) return merchantRef.current?.focus();
    if (found.category) return categoryRef.current?.focus();
    create.mutate(
      { merchant: typed, categoryId },
      {
        onSuccess: (rule) => {
          const category = categories.find((c) => c.id === rule.categoryId);
          onResult(
            `Added: new ${rule.merchant} transactions are booked to ${category ? categoryLabel(category) : 'the category'}.`,
          );
          setMerchant('');
          setCategoryId('');
          merchantRef.current?.focus();
        },
        onError: (error) => {
          if (isApiError(error) && error.code === 'merchant_rule_exists') {
            setErrors({ merchant: error.message });
            merchantRef.current?.focus();
          } else if (isApiError(error) && error.code === 'category_archived') {
            setErrors({ category: error.message });
            categoryRef.current?.focus();
          } else setErrors({ form: error.message });
        },
      },
    );
  };

  return (
    <form
      className="merchant-rule-form"
      aria-label="Add merchant rule"
      onSubmit={submit}
      noValidate
    >
      <Field label="Merchant" className="rule-merchant-field" error={errors.merchant}>
        {(control) => (
          <input
            {...control}
            ref={merchantRef}
            value={merchant}
            autoComplete="off"
            placeholder="BLUE BOTTLE SF"
            onChange={(e) => {
              setMerchant(e.target.value);
              setErrors({ ...errors, merchant: undefined, form: undefined });
            }}
          />
        )}
      </Field>
      <Field label="Books to" className="rule-category-field" error={errors.category}>
        {(control) => (
          <select
            {...control}
            ref={categoryRef}
            value={categoryId}
            onChange={(e) => {
              setCategoryId(e.target.value);
              setErrors({ ...errors, category: undefined, form: undefined });
            }}
          >
            <option value="">Choose a category…</option>
            {offered.map((c) => (
              <option key={c.id} value={c.id}>
                {categoryLabel(c)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="primary" aria-disabled={create.isPending || undefined}>
          {create.isPending ? 'Adding…' : 'Add rule'}
        </button>
      </div>
      {errors.form ? (
        <p className="form-error" role="alert">
          Not added: {errors.form}
        </p>
      ) : null}
    </form>
  );
}
