import type { Card } from '@card-console/shared/api/cards';
import { type FormEvent, useState } from 'react';
import { Field } from '../../../components/field';
import { useUpdateCard } from '../api/update-card';
import {
  initialLimitValues,
  type LimitField,
  type LimitFormResult,
  type LimitFormValues,
  validateLimitForm,
  zeroMaximumWarning,
} from '../limit-form';

type Confirming = Extract<LimitFormResult, { ok: true }>;

/** Admin edit of name and per-transaction limits: validate, confirm old → new, save. */
export function LimitEditor({ card, onDone }: { card: Card; onDone: (message: string) => void }) {
  const [values, setValues] = useState<LimitFormValues>(() => initialLimitValues(card));
  const [errors, setErrors] = useState<Partial<Record<LimitField | 'form', string>>>({});
  const [confirming, setConfirming] = useState<Confirming | undefined>();
  const update = useUpdateCard(card.id);

  const set = (field: LimitField) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));

  const review = (event: FormEvent) => {
    event.preventDefault();
    const result = validateLimitForm(card, values);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    update.reset();
    setConfirming(result);
  };

  if (confirming) {
    return (
      <section className="panel" aria-labelledby="confirm-title">
        <h2 id="confirm-title">Confirm changes</h2>
        <ul className="changes">
          {confirming.changes.map((c) => (
            <li key={c.field}>
              {c.field}: <del>{c.from}</del> → <ins>{c.to}</ins>
            </li>
          ))}
        </ul>
        {confirming.warnings.map((w) => (
          <p key={w} className="warning" role="note">
            {w}
          </p>
        ))}
        {update.error ? (
          <p className="form-error" role="alert">
            The change was refused: {update.error.message}
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={() => setConfirming(undefined)}>
            Back to editing
          </button>
          <button
            type="button"
            className="primary"
            disabled={update.isPending}
            onClick={() =>
              update.mutate(confirming.body, { onSuccess: () => onDone('Card updated.') })
            }
          >
            {update.isPending ? 'Saving…' : 'Confirm changes'}
          </button>
        </div>
      </section>
    );
  }

  const zeroWarning = errors.maximum ? undefined : zeroMaximumWarning(values.maximum);
  return (
    <form className="panel stack" onSubmit={review} noValidate aria-labelledby="edit-title">
      <h2 id="edit-title">Edit card</h2>
      <TextField label="Name" error={errors.name} value={values.name} onChange={set('name')} />
      <TextField
        label="Minimum per transaction (USD)"
        error={errors.minimum}
        value={values.minimum}
        onChange={set('minimum')}
        inputMode="decimal"
      />
      <TextField
        label="Maximum per transaction (USD)"
        error={errors.maximum}
        value={values.maximum}
        onChange={set('maximum')}
        inputMode="decimal"
      />
      {zeroWarning ? (
        <p className="warning" role="note">
          {zeroWarning}
        </p>
      ) : null}
      {errors.form ? (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" onClick={() => onDone('')}>
          Cancel
        </button>
        <button type="submit" className="primary">
          Review changes
        </button>
      </div>
    </form>
  );
}

interface AmountFieldProps {
  label: string;
  value: string;
  error: string | undefined;
  onChange: (e: React.ChangeEvent<HTMLInputElement>) => void;
  inputMode?: 'decimal';
}

function TextField({ label, value, error, onChange, inputMode }: AmountFieldProps) {
  return (
    <Field label={label} error={error}>
      {(control) => <input {...control} value={value} onChange={onChange} inputMode={inputMode} />}
    </Field>
  );
}
