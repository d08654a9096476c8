import type { Card } from '@card-console/shared/api/cards';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { cardChangedValues, useUpdateCard } from '../api/update-card';
import {
  cardWithValues,
  changeOnCurrent,
  initialLimitValues,
  type LimitField,
  type LimitFormResult,
  type LimitFormValues,
  maximumWarning,
  validateLimitForm,
} from '../limit-form';
import { LimitConflict } from './limit-conflict';
import { LimitImpactPreview } from './limit-impact';

type Confirming = Extract<LimitFormResult, { ok: true }>;
type Errors = Partial<Record<LimitField | 'form', string>>;

type Step =
  | { kind: 'editing' }
  | { kind: 'confirming'; result: Confirming }
  | { kind: 'conflict'; mine: Confirming; current: Card };

/**
 * Admin edit of name and per-transaction limits: validate, confirm old → new, save. The change
 * states the values it replaces, as they were when editing began (`base`), so a change someone
 * else saved meanwhile is never overwritten: the BFF refuses (409) and the conflict is shown.
 * Focus follows the steps (the first field or the first wrong one, then the summary to confirm);
 * Escape anywhere in the editor cancels it.
 */
export function LimitEditor({
  card,
  largeMaximumCents,
  onDone,
}: {
  card: Card;
  /** A new maximum at or above this is warned about (the deployment's, from the session). */
  largeMaximumCents: number;
  onDone: (message: string) => void;
}) {
  // What the person saw: a background refresh of the card must not move it under their edit.
  const [base, setBase] = useState(card);
  const [values, setValues] = useState<LimitFormValues>(() => initialLimitValues(card));
  const [errors, setErrors] = useState<Errors>({});
  const [step, setStep] = useState<Step>({ kind: 'editing' });
  const update = useUpdateCard(card.id);
  const root = useRef<HTMLDivElement>(null);
  const confirmHeading = useRef<HTMLHeadingElement>(null);

  // The conflict screen focuses its own heading.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the step or the errors change
  useEffect(() => {
    if (step.kind === 'confirming') confirmHeading.current?.focus();
    if (step.kind !== 'editing') return;
    const fields = [...(root.current?.querySelectorAll('input') ?? [])];
    (fields.find((f) => f.getAttribute('aria-invalid') === 'true') ?? fields[0])?.focus();
  }, [step, errors]);

  // Not while a save is on its way: its answer decides what the screen shows next.
  useKeyDown(root, (event) => {
    if (event.key !== 'Escape' || event.defaultPrevented || update.isPending) return;
    event.preventDefault();
    onDone('');
  });

  const set = (field: LimitField) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));

  const save = (result: Confirming, from: Card) =>
    update.mutate(result.body, {
      onSuccess: () => onDone('Card updated.'),
      onError: (error) => {
        const now = cardChangedValues(error);
        if (!now) return;
        setBase(from);
        setStep({ kind: 'conflict', mine: result, current: cardWithValues(from, now) });
      },
    });

  const review = (event: FormEvent) => {
    event.preventDefault();
    const result = validateLimitForm(base, values, largeMaximumCents);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    update.reset();
    setStep({ kind: 'confirming', result });
  };

  /** Editing goes on from the card as it is now, with the person's change laid over it. */
  const editFromCurrent = (current: Card, mine: Confirming, nextErrors: Errors = {}) => {
    setBase(current);
    setValues(changeOnCurrent(current, mine.body));
    setErrors(nextErrors);
    update.reset();
    setStep({ kind: 'editing' });
  };

  const reapply = (current: Card, mine: Confirming) => {
    const next = validateLimitForm(current, changeOnCurrent(current, mine.body), largeMaximumCents);
    if (next.ok) {
      save(next, current);
    } else if (next.errors.form === 'Nothing has changed.') {
      onDone('Nothing to save: the card already has the values you entered.');
    } else {
      // The change no longer fits the card as it is (e.g. a minimum above the new maximum).
      editFromCurrent(current, mine, next.errors);
    }
  };

  return (
    <div ref={root} className="limit-editor">
      {step.kind === 'conflict'
        ? renderConflict(step)
        : step.kind === 'confirming'
          ? renderConfirming(step.result)
          : renderEditing()}
    </div>
  );

  function renderConflict(step: Extract<Step, { kind: 'conflict' }>) {
    const conflictAgain = cardChangedValues(update.error) !== undefined;
    return (
      <LimitConflict
        seen={base}
        current={step.current}
        mine={step.mine.body}
        failure={update.error && !conflictAgain ? update.error.message : undefined}
        saving={update.isPending}
        onReapply={() => reapply(step.current, step.mine)}
        onEditAgain={() => editFromCurrent(step.current, step.mine)}
        onCancel={() => onDone('')}
      />
    );
  }

  function renderConfirming(confirming: Confirming) {
    const limit = confirming.body.transactionSizeLimit;
    return (
      <section className="panel" aria-labelledby="confirm-title">
        <h2 id="confirm-title" ref={confirmHeading} tabIndex={-1}>
          Confirm changes
        </h2>
        <ul className="changes">
          {/* Coloured by what the change does, not old-red/new-green: a tighter limit allows
              fewer amounts (caution), a looser one more. What it would have done to the card's
              own charges is the preview's to say, from them. */}
          {confirming.changes.map((c) => (
            <li key={c.field} className={c.effect ? `change-${c.effect}` : undefined}>
              {c.field}: <del>{c.from}</del> → <ins>{c.to}</ins>
              {c.effect ? (
                <span className="change-effect">
                  {c.effect === 'tighter' ? 'Tighter limit' : 'Looser limit'}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
        {confirming.warnings.map((w) => (
          <p key={w} className="warning" role="note">
            {w}
          </p>
        ))}
        {limit ? (
          <LimitImpactPreview
            cardId={base.id}
            // The limits as they would be once saved: the change over the card as seen.
            limits={{
              minimumCents: limit.minimumCents ?? base.transactionSizeLimit.minimumCents,
              maximumCents: limit.maximumCents ?? base.transactionSizeLimit.maximumCents,
            }}
          />
        ) : null}
        {update.error && !cardChangedValues(update.error) ? (
          <p className="form-error" role="alert">
            The change was refused: {update.error.message}
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={() => setStep({ kind: 'editing' })}>
            Back to editing
          </button>
          <button
            type="button"
            className="primary"
            disabled={update.isPending}
            onClick={() => save(confirming, base)}
          >
            {update.isPending ? 'Saving…' : 'Confirm changes'}
          </button>
        </div>
      </section>
    );
  }

  function renderEditing() {
    const warning = errors.maximum
      ? undefined
      : maximumWarning(base, values.maximum, largeMaximumCents);
    return (
      <form className="panel stack" onSubmit={review} noValidate aria-labelledby="edit-title">
        <h2 id="edit-title">Edit card</h2>
        <TextField label="Name" error={errors.name} value={values.name} onChange={set('name')} />
        <MoneyField
          label="Minimum per transaction (USD)"
          error={errors.minimum}
          value={values.minimum}
          onChange={set('minimum')}
        />
        <MoneyField
          label="Maximum per transaction (USD)"
          error={errors.maximum}
          value={values.maximum}
          onChange={set('maximum')}
        />
        {warning ? (
          <p className="warning" role="note">
            {warning}
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
}

/** A key listener on a region (not a control, so no onKeyDown prop), always the latest handler. */
function useKeyDown(
  target: React.RefObject<HTMLElement | null>,
  handler: (event: KeyboardEvent) => void,
) {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const el = target.current;
    const listener = (event: KeyboardEvent) => latest.current(event);
    el?.addEventListener('keydown', listener);
    return () => el?.removeEventListener('keydown', listener);
  }, [target]);
}

interface TextFieldProps {
  label: string;
  value: string;
  error: string | undefined;
  onChange: (e: React.ChangeEvent<HTMLInputElement>) => void;
}

function TextField({ label, value, error, onChange }: TextFieldProps) {
  return (
    <Field label={label} error={error}>
      {(control) => <input {...control} value={value} onChange={onChange} />}
    </Field>
  );
}

/** Dollars, with a "$" before them (the label says USD for screen readers) and an amount's width. */
function MoneyField({ label, value, error, onChange }: TextFieldProps) {
  return (
    <Field label={label} error={error} className="money-field">
      {(control) => (
        <span className="money-input">
          <span className="money-prefix" aria-hidden="true">
            $
          </span>
          <input {...control} value={value} onChange={onChange} inputMode="decimal" />
        </span>
      )}
    </Field>
  );
}
