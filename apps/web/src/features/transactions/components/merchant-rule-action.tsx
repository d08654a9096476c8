import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { useCreateMerchantRule } from '../../accounting-categories/api/create-merchant-rule';
import {
  merchantRulesQueryOptions,
  ruleFor,
} from '../../accounting-categories/api/get-merchant-rules';
import { sessionQueryOptions } from '../../session/api/get-session';
import { categoryText } from './accounting-category-select';

interface Props {
  /** The merchant's text as the transaction shows it. */
  merchant: string;
  /** The category the notes are saved with. */
  categoryId: string;
  categories: AccountingCategory[];
}

/**
 * For admins: "Always book <merchant> to <category>", a merchant rule from this transaction's
 * saved category. A merchant that has a rule says which instead; a rule added meanwhile (409)
 * is said plainly.
 */
export function MerchantRuleAction({ merchant, categoryId, categories }: Props) {
  const session = useQuery(sessionQueryOptions());
  const admin = session.data?.role === 'admin';
  const rules = useQuery({ ...merchantRulesQueryOptions(), enabled: admin });
  const create = useCreateMerchantRule();
  const [said, setSaid] = useState<{ text: string; failed?: boolean }>();
  const saidRef = useRef<HTMLParagraphElement>(null);
  // The button goes once the rule exists: the focus moves to what happened.
  useEffect(() => {
    if (said) saidRef.current?.focus();
  }, [said]);
  if (!admin || !rules.data) return null;
  const label = categoryText(categoryId, categories);
  const rule = ruleFor(rules.data, merchant);

  return (
    <div className="merchant-rule-action">
      {rule ? (
        said && !said.failed ? null : (
          <p className="muted">
            A merchant rule books new {rule.merchant} transactions to{' '}
            {categoryText(rule.categoryId, categories)}.{' '}
            <Link to="/accounting-categories">Merchant rules</Link>
          </p>
        )
      ) : (
        <button
          type="button"
          aria-disabled={create.isPending || undefined}
          onClick={() => {
            if (create.isPending) return;
            setSaid(undefined);
            create.mutate(
              { merchant, categoryId },
              {
                onSuccess: () =>
                  setSaid({ text: `New ${merchant} transactions will be booked to ${label}.` }),
                onError: (error) => setSaid({ text: error.message, failed: true }),
              },
            );
          }}
        >
          {create.isPending ? 'Adding the rule…' : `Always book ${merchant} to ${label}`}
        </button>
      )}
      <div role="status" aria-live="polite">
        {said ? (
          <p ref={saidRef} tabIndex={-1} className={said.failed ? 'form-error' : 'notice'}>
            {said.text}
          </p>
        ) : null}
      </div>
    </div>
  );
}
