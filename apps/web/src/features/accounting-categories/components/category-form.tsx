import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { isApiError } from '../../../lib/api-error';
import {
  type CategoryFormErrors,
  type CategoryFormValues,
  categoryFormErrors,
} from '../category-form';

interface CategoryFormProps {
  /** The accessible name of the form ("Add category", "Edit 6100 Software"). */
  label: string;
  initial: CategoryFormValues;
  submitLabel: string;
  /** Sends what the person typed (trimmed); rejects with the BFF's refusal. */
  onSave: (values: CategoryFormValues) => Promise<AccountingCategory>;
  onSaved: (category: AccountingCategory) => void;
  /** Inline editing: Cancel (and Escape) leave the form. */
  onCancel?: () => void;
  /** Focus the code field when the form appears (inline editing). */
  autoFocus?: boolean;
  className?: string;
}

/**
 * A category's code and name, checked as the BFF checks them before anything is sent. A code
 * another category has (409 `category_code_taken`) is said under the code field, which takes
 * the focus; what was typed stays.
 */
export function CategoryForm(props: CategoryFormProps) {
  const { initial, onCancel } = props;
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<CategoryFormErrors & { form?: string }>({});
  const [busy, setBusy] = useState(false);
  const code = useRef<HTMLInputElement>(null);
  const name = useRef<HTMLInputElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the form appears
  useEffect(() => {
    if (props.autoFocus) code.current?.focus();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = categoryFormErrors(values);
    setErrors(found);
    if (found.code || found.name) {
      (found.code ? code : name).current?.focus();
      return;
    }
    setBusy(true);
    try {
      const saved = await props.onSave({ code: values.code.trim(), name: values.name.trim() });
      setBusy(false);
      props.onSaved(saved);
    } catch (error) {
      setBusy(false);
      if (isApiError(error) && error.code === 'category_code_taken') {
        setErrors({ code: error.message });
        code.current?.focus();
      } else {
        setErrors({ form: error instanceof Error ? error.message : String(error) });
      }
    }
  };

  const set = (key: keyof CategoryFormValues) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setValues({ ...values, [key]: e.target.value });
    // A refusal was about what was sent, not what is being typed now.
    if (errors[key] || errors.form) setErrors({ ...errors, [key]: undefined, form: undefined });
  };

  return (
    <form
      className={`category-form ${props.className ?? ''}`}
      aria-label={props.label}
      onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && onCancel) {
          e.preventDefault();
          onCancel();
        }
      }}
      noValidate
    >
      <Field label="Code" className="category-code" error={errors.code}>
        {(control) => (
          <input
            {...control}
            ref={code}
            value={values.code}
            autoComplete="off"
            onChange={set('code')}
          />
        )}
      </Field>
      <Field label="Name" className="category-name" error={errors.name}>
        {(control) => (
          <input
            {...control}
            ref={name}
            value={values.name}
            autoComplete="off"
            onChange={set('name')}
          />
        )}
      </Field>
      <div className="actions">
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" className="primary" aria-disabled={busy || undefined}>
          {busy ? 'Saving…' : props.submitLabel}
        </button>
      </div>
      {errors.form ? (
        <p className="form-error" role="alert">
          Not saved: {errors.form}
        </p>
      ) : null}
    </form>
  );
}
