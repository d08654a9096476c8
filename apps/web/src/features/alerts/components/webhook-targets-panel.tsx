import {
  type WebhookTargetCreated,
  type WebhookTargetView,
  webhookTargetInputSchema,
} from '@card-console/shared/api/alerts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { Field } from '../../../components/field';
import { FormFooter } from '../../../components/form-footer';
import { ShownOnce } from '../../../components/shown-once';
import { isApiError } from '../../../lib/api-error';
import { isStepUpCancelled, useStepUpRetry } from '../../security';
import {
  useCreateWebhookTarget,
  useDeleteWebhookTarget,
  webhookTargetsQueryOptions,
} from '../api/webhook-targets';

/**
 * Where alerts are posted (admins): each target's requests are signed with a secret made by
 * the server and shown once, when the target is added, for the receiver to check signatures.
 */
export function WebhookTargetsPanel() {
  const targets = useQuery(webhookTargetsQueryOptions());
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<WebhookTargetView>();
  return (
    <section className="panel" aria-label="Webhook targets">
      <div className="screen-header">
        <h2>Webhook targets</h2>
        <button type="button" onClick={() => setAdding(true)}>
          Add webhook
        </button>
      </div>
      <p className="muted">
        Alerts of rules that choose a webhook are posted there as signed JSON (a Slack-compatible{' '}
        <code>text</code> field included), retried when the receiver fails.
      </p>
      {targets.isError ? (
        <p className="field-error" role="alert">
          The webhook targets could not be loaded.
        </p>
      ) : targets.data === undefined ? (
        <p className="muted">Loading…</p>
      ) : targets.data.length === 0 ? (
        <p className="muted">No webhook targets yet.</p>
      ) : (
        <ul className="rule-list">
          {targets.data.map((target) => (
            <li key={target.id} className="rule-item">
              <div className="rule-text">
                <strong className="rule-name">{target.name}</strong>
                <span className="muted rule-what">{target.url}</span>
              </div>
              <div className="rule-actions">
                <button
                  type="button"
                  aria-label={`Delete ${target.name}`}
                  onClick={() => setDeleting(target)}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {adding ? <AddWebhook onClose={() => setAdding(false)} /> : null}
      {deleting ? <DeleteWebhook target={deleting} onClose={() => setDeleting(undefined)} /> : null}
    </section>
  );
}

/**
 * A webhook target sends the program's data out of Card Console: adding or removing one needs a
 * recent second factor, as changes to people do (the BFF asks; the check is made here).
 */
const useWebhookStepUp = () =>
  useStepUpRetry({
    intro:
      'Adding or removing a webhook target needs a recent second-factor check. The change is made once it passes.',
    returnTo: '/alerts',
  });

/** What a refused change says; closing the second-factor check says nothing. */
function failureOf(caught: unknown, fallback: string): string | undefined {
  if (isStepUpCancelled(caught)) return undefined;
  return isApiError(caught) ? caught.message : fallback;
}

function AddWebhook({ onClose }: { onClose: () => void }) {
  const create = useCreateWebhookTarget();
  const stepUp = useWebhookStepUp();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [errors, setErrors] = useState<{ name?: string; url?: string }>({});
  const [created, setCreated] = useState<WebhookTargetCreated>();
  const [failure, setFailure] = useState<string>();

  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    const checked = webhookTargetInputSchema.safeParse({ name, url });
    if (!checked.success) {
      const found: { name?: string; url?: string } = {};
      for (const issue of checked.error.issues) {
        const key = issue.path[0];
        if ((key === 'name' || key === 'url') && !found[key]) found[key] = capital(issue.message);
      }
      setErrors(found);
      return;
    }
    setErrors({});
    setFailure(undefined);
    stepUp
      .guarded(() => create.mutateAsync(checked.data))
      .then(setCreated, (caught: unknown) =>
        setFailure(failureOf(caught, 'The webhook could not be added.')),
      );
  };

  if (created) {
    return (
      <Dialog title={`${created.name} is added`} onClose={onClose}>
        <ShownOnce label="Signing secret" value={created.secret} name="the secret" onDone={onClose}>
          <p>
            Requests to {created.url} are signed with this secret (HMAC-SHA256 in the{' '}
            <code>Card-Console-Signature</code> header). It is shown only now: give it to the
            receiver before closing.
          </p>
        </ShownOnce>
      </Dialog>
    );
  }
  if (stepUp.prompt) {
    return (
      <Dialog title="Confirm it is you" onClose={() => stepUp.cancel()}>
        {stepUp.prompt}
      </Dialog>
    );
  }
  return (
    <Dialog title="Add a webhook" onClose={onClose}>
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field label="Name" error={errors.name}>
          {(control) => (
            <input {...control} value={name} onChange={(e) => setName(e.target.value)} />
          )}
        </Field>
        <Field label="URL" hint="https://, a public address" error={errors.url}>
          {(control) => (
            <input
              {...control}
              value={url}
              inputMode="url"
              placeholder="https://hooks.example.com/alerts"
              onChange={(e) => setUrl(e.target.value)}
            />
          )}
        </Field>
        <FormFooter error={failure} onCancel={onClose}>
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Adding…' : 'Add webhook'}
          </button>
        </FormFooter>
      </form>
    </Dialog>
  );
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function DeleteWebhook({ target, onClose }: { target: WebhookTargetView; onClose: () => void }) {
  const remove = useDeleteWebhookTarget();
  const stepUp = useWebhookStepUp();
  const [error, setError] = useState<string>();
  const onDelete = () => {
    setError(undefined);
    stepUp
      .guarded(() => remove.mutateAsync(target.id))
      .then(onClose, (caught: unknown) =>
        setError(failureOf(caught, 'The webhook could not be deleted.')),
      );
  };
  if (stepUp.prompt) {
    return (
      <Dialog title="Confirm it is you" onClose={() => stepUp.cancel()}>
        {stepUp.prompt}
      </Dialog>
    );
  }
  return (
    <Dialog title={`Delete “${target.name}”?`} onClose={onClose}>
      <p>Alerts are no longer posted to {target.url}.</p>
      <FormFooter error={error} onCancel={onClose}>
        <button type="button" className="primary" disabled={remove.isPending} onClick={onDelete}>
          Delete webhook
        </button>
      </FormFooter>
    </Dialog>
  );
}
