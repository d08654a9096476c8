import { useQuery } from '@tanstack/react-query';
import { Field } from '../../../components/field';
import { maskedLast4 } from '../../../lib/format';
import { useCardChoices } from '../../cards/api/use-card-choices';
import { subAccountsQueryOptions } from '../../sub-accounts/api/get-sub-accounts';
import type { RuleFormErrors, RuleFormValues } from '../rule-form';

interface RuleScopeFieldsProps {
  values: RuleFormValues;
  errors: RuleFormErrors;
  set: <K extends keyof RuleFormValues>(key: K, value: RuleFormValues[K]) => void;
}

/**
 * What a rule watches: every sub account or one, every card or one (a balance rule takes no
 * card). The cards load when the picker is first reached for, as the Transactions filter does.
 */
export function RuleScopeFields({ values, errors, set }: RuleScopeFieldsProps) {
  const subAccounts = useQuery(subAccountsQueryOptions());
  const cards = useCardChoices(values.cardId || undefined);
  return (
    <>
      <Field label="Sub account" error={errors.subAccountId}>
        {(control) => (
          <select
            {...control}
            value={values.subAccountId}
            onChange={(e) => set('subAccountId', e.target.value)}
          >
            <option value="">All sub accounts</option>
            {values.subAccountId && !subAccounts.data?.some((s) => s.id === values.subAccountId) ? (
              <option value={values.subAccountId}>{values.subAccountId}</option>
            ) : null}
            {subAccounts.data?.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {values.kind !== 'balance_below' ? (
        <Field label="Card" error={errors.cardId}>
          {(control) => (
            <select
              {...control}
              value={values.cardId}
              onChange={(e) => set('cardId', e.target.value)}
              onFocus={cards.load}
              onPointerDown={cards.load}
              aria-busy={cards.state === 'loading'}
            >
              <option value="">All cards</option>
              {values.cardId && !cards.cards.some((c) => c.id === values.cardId) ? (
                <option value={values.cardId}>{values.cardId}</option>
              ) : null}
              {cards.cards.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name} ({maskedLast4(c.last4)})
                </option>
              ))}
              {cards.state === 'loading' ? <option disabled>Loading cards…</option> : null}
              {cards.state === 'error' ? <option disabled>Cards could not be loaded</option> : null}
            </select>
          )}
        </Field>
      ) : null}
    </>
  );
}
