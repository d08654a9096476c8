import type { AlertRuleView, AlertTestResult } from '@card-console/shared/api/alerts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { FormFooter } from '../../../components/form-footer';
import { useDocumentTitle } from '../../../components/use-document-title';
import { apiProblem, isApiError } from '../../../lib/api-error';
import { maskedLast4 } from '../../../lib/format';
import { useCardChoices } from '../../cards/api/use-card-choices';
import { subAccountsQueryOptions } from '../../sub-accounts/api/get-sub-accounts';
import { useDeleteAlertRule } from '../api/delete-alert-rule';
import { useSendTestAlert } from '../api/send-test-alert';
import { ruleDescription } from '../rule-form';
import { AlertRuleForm } from './alert-rule-form';
import { WebhookTargetsPanel } from './webhook-targets-panel';

/**
 * The caller's alert rules and the team's: what raises an alert in their inbox (the bell).
 * Anyone keeps their own rules; only admins make or change team rules (others read them).
 */
export function AlertRulesScreen({ rules, isAdmin }: { rules: AlertRuleView[]; isAdmin: boolean }) {
  useDocumentTitle('Alert rules');
  // 'new', a rule's id, or nothing.
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<AlertRuleView>();
  const mine = rules.filter((r) => !r.team);
  const team = rules.filter((r) => r.team);
  const editingRule = rules.find((r) => r.id === editing);
  // When the form closes, focus goes back to New rule rather than to the page's start.
  const newRule = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (editing === undefined && wasEditing.current) newRule.current?.focus();
    wasEditing.current = editing !== undefined;
  }, [editing]);

  return (
    <section aria-labelledby="alert-rules-title" className="alert-rules">
      <div className="screen-header">
        <h1 id="alert-rules-title">Alert rules</h1>
        {editing === undefined ? (
          <button ref={newRule} type="button" className="primary" onClick={() => setEditing('new')}>
            New rule
          </button>
        ) : null}
      </div>
      <p className="muted">
        A rule raises an alert when what it watches happens: in your inbox (the bell at the top), by
        email, or (admins) posted to a webhook.
      </p>
      {editing !== undefined ? (
        <AlertRuleForm
          key={editing}
          rule={editingRule}
          isAdmin={isAdmin}
          onDone={() => setEditing(undefined)}
        />
      ) : null}
      <RuleList
        title="Your rules"
        empty="You have no alert rules yet."
        rules={mine}
        canChange
        onEdit={setEditing}
        onDelete={setDeleting}
      />
      <RuleList
        title="Team rules"
        empty="There are no team rules."
        note={isAdmin ? undefined : 'Team rules are kept by admins: you receive their alerts.'}
        rules={team}
        canChange={isAdmin}
        onEdit={setEditing}
        onDelete={setDeleting}
      />
      {isAdmin ? <WebhookTargetsPanel /> : null}
      {deleting ? <DeleteRule rule={deleting} onClose={() => setDeleting(undefined)} /> : null}
    </section>
  );
}

interface RuleListProps {
  title: string;
  empty: string;
  note?: string | undefined;
  rules: AlertRuleView[];
  canChange: boolean;
  onEdit: (id: string) => void;
  onDelete: (rule: AlertRuleView) => void;
}

function RuleList({ title, empty, note, rules, canChange, onEdit, onDelete }: RuleListProps) {
  return (
    <section className="panel" aria-label={title}>
      <h2>{title}</h2>
      {note ? <p className="muted">{note}</p> : null}
      {rules.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul className="rule-list">
          {rules.map((rule) => (
            <RuleRow
              key={rule.id}
              rule={rule}
              canChange={canChange}
              onEdit={onEdit}
              onDelete={onDelete}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Where a test went, in words: "your inbox, an email to you@… and the Ops webhook". */
function testSentText(sent: AlertTestResult): string {
  const places = [
    ...(sent.inbox ? ['your inbox'] : []),
    ...(sent.email ? [`an email to ${sent.email}`] : []),
    ...(sent.webhook ? [`the ${sent.webhook} webhook`] : []),
  ];
  const where =
    places.length > 1 ? `${places.slice(0, -1).join(', ')} and ${places.at(-1)}` : places[0];
  const queued =
    sent.email || sent.webhook ? ' Emails and webhook posts leave within seconds.' : '';
  return `Test sent to ${where ?? 'nowhere'}.${queued}`;
}

/**
 * One rule, and what may be done with it. "Send test" sends a test of the rule, on or off, to
 * the person alone through its channels: an example of what it sends, marked a test, so they
 * see where its alerts go before anything happens.
 */
function RuleRow({
  rule,
  canChange,
  onEdit,
  onDelete,
}: Omit<RuleListProps, 'title' | 'empty' | 'note' | 'rules'> & { rule: AlertRuleView }) {
  const send = useSendTestAlert();
  // What a rule on one card or sub account watches, by name (the list of sub accounts is one
  // cached read; a card, one read each).
  const subAccounts = useQuery({ ...subAccountsQueryOptions(), enabled: !!rule.subAccountId });
  const card = useCardChoices(rule.cardId).cards.find((c) => c.id === rule.cardId);
  const scope = {
    subAccount: subAccounts.data?.find((s) => s.id === rule.subAccountId)?.name,
    card: card ? `${card.name} (${maskedLast4(card.last4)})` : undefined,
  };
  return (
    <li className="rule-item">
      <div className="rule-text">
        <strong className="rule-name">{rule.name}</strong>
        {rule.team ? <span className="rule-tag">Team</span> : null}
        {rule.enabled ? null : <span className="rule-tag off">Off</span>}
        <span className="muted rule-what">{ruleDescription(rule, scope)}</span>
      </div>
      {canChange ? (
        <>
          <div className="rule-actions">
            <button type="button" aria-label={`Edit ${rule.name}`} onClick={() => onEdit(rule.id)}>
              Edit
            </button>
            <button type="button" aria-label={`Delete ${rule.name}`} onClick={() => onDelete(rule)}>
              Delete
            </button>
            <button
              type="button"
              aria-label={`Send test of ${rule.name}`}
              aria-disabled={send.isPending || undefined}
              onClick={() => {
                if (!send.isPending) send.mutate(rule.id);
              }}
            >
              Send test
            </button>
          </div>
          <p className="rule-test-result" role="status">
            {send.isSuccess ? testSentText(send.data) : null}
            {send.isError ? (
              <span className="field-error">
                {isApiError(send.error) ? send.error.message : 'The test could not be sent.'}
              </span>
            ) : null}
          </p>
        </>
      ) : null}
    </li>
  );
}

function DeleteRule({ rule, onClose }: { rule: AlertRuleView; onClose: () => void }) {
  const remove = useDeleteAlertRule();
  const conflict = apiProblem(remove.error, 'alert_rule_changed')?.current;
  const error = conflict
    ? `Someone changed this rule meanwhile: it is now “${conflict.name}” (${ruleDescription(conflict)}). Close and look again before deleting.`
    : remove.isError
      ? isApiError(remove.error)
        ? remove.error.message
        : 'The rule could not be deleted.'
      : undefined;
  return (
    <Dialog title={`Delete “${rule.name}”?`} onClose={onClose}>
      <p>Its alerts already in inboxes stay; no new ones are raised.</p>
      <FormFooter error={error} onCancel={onClose}>
        <button
          type="button"
          className="primary"
          disabled={remove.isPending || conflict !== undefined}
          onClick={() =>
            remove.mutate({ id: rule.id, version: rule.version }, { onSuccess: onClose })
          }
        >
          Delete rule
        </button>
      </FormFooter>
    </Dialog>
  );
}
