import {
  type AlertRuleKind,
  type AlertRuleView,
  alertRuleKinds,
} from '@card-console/shared/api/alerts';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Field } from '../../../components/field';
import { FormFooter } from '../../../components/form-footer';
import { apiProblem, isApiError } from '../../../lib/api-error';
import { useSaveAlertRule } from '../api/save-alert-rule';
import { webhookTargetsQueryOptions } from '../api/webhook-targets';
import {
  defaultRuleName,
  emptyRuleForm,
  formToInput,
  kindLabels,
  ownerApplies,
  type RuleFormErrors,
  type RuleFormValues,
  ruleDescription,
  ruleToForm,
  takesAmount,
} from '../rule-form';
import { RuleScopeFields } from './rule-scope-fields';

interface AlertRuleFormProps {
  /** The rule being changed; none for a new one. */
  rule?: AlertRuleView | undefined;
  isAdmin: boolean;
  onDone: () => void;
}

/** Creates or changes a rule; a change made meanwhile (409) shows the rule as it is now. */
export function AlertRuleForm({ rule, isAdmin, onDone }: AlertRuleFormProps) {
  const [values, setValues] = useState<RuleFormValues>(rule ? ruleToForm(rule) : emptyRuleForm);
  const [version, setVersion] = useState(rule?.version);
  const [errors, setErrors] = useState<RuleFormErrors>({});
  const save = useSaveAlertRule();
  const conflict = apiProblem(save.error, 'alert_rule_changed')?.current;
  const set = <K extends keyof RuleFormValues>(key: K, value: RuleFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    const checked = formToInput(values);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const done = { onSuccess: onDone };
    if (rule && version !== undefined)
      save.mutate({ id: rule.id, input: { ...checked.input, version } }, done);
    else save.mutate({ input: checked.input }, done);
  };
  const reload = (current: AlertRuleView) => {
    setValues(ruleToForm(current));
    setVersion(current.version);
    setErrors({});
    save.reset();
  };

  const kindOptions = alertRuleKinds;
  return (
    <form className="panel alert-rule-form" onSubmit={onSubmit} noValidate>
      <h2>{rule ? `Edit “${rule.name}”` : 'New alert rule'}</h2>
      <Field
        label="Name"
        hint="Optional: left empty, the rule is saved with the name shown in it"
        error={errors.name}
      >
        {(control) => (
          <input
            {...control}
            value={values.name}
            placeholder={defaultRuleName(values)}
            // The form opens at a person's request: they start at its first field.
            // biome-ignore lint/a11y/noAutofocus: opened by pressing New rule or Edit
            autoFocus
            onChange={(e) => set('name', e.target.value)}
          />
        )}
      </Field>
      <Field label="Alert me when" error={errors.kind}>
        {(control) => (
          <select
            {...control}
            value={values.kind}
            onChange={(e) => set('kind', e.target.value as AlertRuleKind)}
          >
            {kindOptions.map((kind) => (
              <option key={kind} value={kind}>
                {kindLabels[kind]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {takesAmount(values.kind) ? (
        <Field
          label={values.kind === 'amount_above' ? 'Amount over (USD)' : 'Balance under (USD)'}
          error={errors.amount}
          className="money-field"
        >
          {(control) => (
            <span className="money-input">
              <span className="money-prefix" aria-hidden="true">
                $
              </span>
              <input
                {...control}
                value={values.amount}
                inputMode="decimal"
                onChange={(e) => set('amount', e.target.value)}
              />
            </span>
          )}
        </Field>
      ) : null}
      {values.kind === 'utilisation_above' ? (
        <Field
          label="Share of the card's limit (%)"
          hint="A whole number from 1 to 100"
          error={errors.share}
        >
          {(control) => (
            <input
              {...control}
              value={values.share}
              inputMode="numeric"
              className="share-input"
              onChange={(e) => set('share', e.target.value)}
            />
          )}
        </Field>
      ) : null}
      <RuleScopeFields values={values} errors={errors} set={set} />
      <fieldset
        className="rule-channels"
        aria-describedby={errors.channels ? 'rule-channels-error' : undefined}
      >
        <legend>Tell me by</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={values.inbox}
            onChange={(e) => set('inbox', e.target.checked)}
          />
          In-app inbox (the bell)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={values.email}
            onChange={(e) => set('email', e.target.checked)}
          />
          Email
        </label>
        {isAdmin ? (
          <WebhookChoice
            value={values.webhookTargetId}
            onChange={(id) => set('webhookTargetId', id)}
          />
        ) : values.webhookTargetId ? (
          <small className="muted">This rule also posts to a webhook (kept as it is).</small>
        ) : null}
        {errors.channels ? (
          <small id="rule-channels-error" className="field-error">
            {errors.channels}
          </small>
        ) : null}
      </fieldset>
      <div className="rule-checks">
        <label className="check">
          <input
            type="checkbox"
            checked={values.digest}
            aria-invalid={errors.digest ? true : undefined}
            aria-describedby={errors.digest ? 'rule-digest-error' : undefined}
            onChange={(e) => set('digest', e.target.checked)}
          />
          Daily email digest instead of one email each
        </label>
        {errors.digest ? (
          <small id="rule-digest-error" className="field-error">
            {errors.digest}
          </small>
        ) : null}
        {values.kind === 'balance_below' ? null : (
          <CardOwnerCheck values={values} error={errors.cardOwner} set={set} />
        )}
        <label className="check">
          <input
            type="checkbox"
            checked={values.enabled}
            onChange={(e) => set('enabled', e.target.checked)}
          />
          Enabled
        </label>
        {isAdmin ? (
          <label className="check">
            <input
              type="checkbox"
              checked={values.team}
              disabled={rule !== undefined}
              onChange={(e) => set('team', e.target.checked)}
            />
            Team rule (for everyone)
          </label>
        ) : null}
      </div>
      {conflict ? (
        <div className="notice warn" role="alert">
          <p>
            Someone changed this rule while you were editing it. It is now:{' '}
            <strong>{conflict.name}</strong> — {ruleDescription(conflict)}
            {conflict.enabled ? '' : ' (disabled)'}.
          </p>
          <button type="button" onClick={() => reload(conflict)}>
            Reload the rule
          </button>
        </div>
      ) : null}
      <FormFooter
        error={
          save.isError && !conflict
            ? isApiError(save.error)
              ? save.error.message
              : 'The rule could not be saved.'
            : undefined
        }
        onCancel={onDone}
      >
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : rule ? 'Save changes' : 'Create rule'}
        </button>
      </FormFooter>
    </form>
  );
}

/** Admins choose where the rule's alerts are posted, among the webhook targets. */
function WebhookChoice({
  value,
  onChange,
}: {
  value: string | null;
  onChange: (id: string | null) => void;
}) {
  const id = useId();
  const targets = useQuery(webhookTargetsQueryOptions());
  const known = targets.data ?? [];
  return (
    <span className="field">
      <label htmlFor={id}>Webhook</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value || null)}>
        <option value="">None</option>
        {known.map((target) => (
          <option key={target.id} value={target.id}>
            {target.name}
          </option>
        ))}
        {value !== null && targets.data && !known.some((t) => t.id === value) ? (
          <option value={value}>A removed webhook</option>
        ) : null}
      </select>
    </span>
  );
}

/**
 * "Also to the card's owner": each alert of a card to the owner given to it, by email and, for a
 * person in People, in their inbox. Not with a daily digest (it stays off, saying why) and not
 * on a balance rule (not shown): the shared schema's rules.
 */
function CardOwnerCheck({
  values,
  error,
  set,
}: {
  values: RuleFormValues;
  error: string | undefined;
  set: <K extends keyof RuleFormValues>(key: K, value: RuleFormValues[K]) => void;
}) {
  const id = useId();
  const applies = ownerApplies(values);
  const describedBy = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <>
      <label className="check">
        <input
          type="checkbox"
          checked={values.cardOwner && applies}
          disabled={!applies}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => set('cardOwner', e.target.checked)}
        />
        Also to the card's owner
      </label>
      <small id={`${id}-hint`} className="muted check-hint">
        {applies
          ? 'Each alert of a card also goes to the owner given to it: by email, and to their inbox when they sign in.'
          : "Not with a daily digest: a card's owner is sent each alert as it comes. Turn the digest off to include them."}
      </small>
      {error ? (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      ) : null}
    </>
  );
}
