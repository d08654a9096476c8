import type { AlertRuleView, WebhookTargetView } from '@card-console/shared/api/alerts';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { adminSession, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';
import { alertRule } from '../test/alert-fixtures';

const SECRET = 'ab'.repeat(32);
const ops: WebhookTargetView = {
  id: 'wh1',
  name: 'Ops channel',
  url: 'https://hooks.example.test/ops',
  createdBy: 'admin@example.test',
  createdAt: '2026-11-27T08:00:00.000Z',
};

let targets: WebhookTargetView[];
beforeEach(() => {
  targets = [ops];
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('alerts.rules', () => HttpResponse.json({ items: [] as AlertRuleView[] })),
    serve('alerts.webhooks', () => HttpResponse.json({ items: targets })),
  );
});

async function panel() {
  const view = renderApp('/alerts', { session: adminSession() });
  const region = await screen.findByRole('region', { name: 'Webhook targets' });
  await within(region).findByText('Ops channel');
  return { ...view, region: within(region) };
}

describe('webhook targets on the alerts screen', () => {
  it('lists the targets for admins and adds one: checked first, then its secret shown once and copyable', async () => {
    server.use(
      serve('alerts.createWebhook', async ({ request }) => {
        const body = (await request.clone().json()) as { name: string; url: string };
        const created = { ...ops, id: 'wh2', ...body };
        targets = [...targets, created];
        return HttpResponse.json({ ...created, secret: SECRET }, { status: 201 });
      }),
    );
    const { user, region } = await panel();
    expect(region.getByText('https://hooks.example.test/ops')).toBeInTheDocument();
    await user.click(region.getByRole('button', { name: 'Add webhook' }));
    let dialog = within(screen.getByRole('dialog', { name: 'Add a webhook' }));
    await user.type(dialog.getByLabelText('URL'), 'not a url');
    await user.click(dialog.getByRole('button', { name: 'Add webhook' }));
    expect(dialog.getByLabelText('Name')).toHaveAccessibleDescription('Name must not be empty');
    expect(dialog.getByLabelText('URL')).toHaveAttribute('aria-invalid', 'true');
    expect(requestsTo('/api/alerts/webhooks', 'POST')).toHaveLength(0);

    await user.type(dialog.getByLabelText('Name'), 'Finance');
    await user.clear(dialog.getByLabelText('URL'));
    await user.type(dialog.getByLabelText('URL'), 'https://hooks.example.test/finance');
    await user.click(dialog.getByRole('button', { name: 'Add webhook' }));
    const shown = within(await screen.findByRole('dialog', { name: 'Finance is added' }));
    expect(await requestsTo('/api/alerts/webhooks', 'POST')[0]?.json()).toEqual({
      name: 'Finance',
      url: 'https://hooks.example.test/finance',
    });
    expect(shown.getByLabelText('Signing secret')).toHaveValue(SECRET);
    expect(shown.getByText(/It is shown only now/)).toBeInTheDocument();
    await user.click(shown.getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(shown.getByText('Copied.')).toBeInTheDocument();

    await user.click(shown.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByDisplayValue(SECRET)).toBeNull();
    expect(await region.findByText('Finance')).toBeInTheDocument();
    // Opened again, the form starts empty: the secret is gone for good.
    await user.click(region.getByRole('button', { name: 'Add webhook' }));
    dialog = within(screen.getByRole('dialog', { name: 'Add a webhook' }));
    expect(dialog.getByLabelText('URL')).toHaveValue('');
  });

  it('shows the server’s refusal of a URL', async () => {
    server.use(
      serve('alerts.createWebhook', () =>
        apiError(
          400,
          'invalid_body',
          'url points at a private, loopback or otherwise non-public address',
        ),
      ),
    );
    const { user, region } = await panel();
    await user.click(region.getByRole('button', { name: 'Add webhook' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Add a webhook' }));
    await user.type(dialog.getByLabelText('Name'), 'Inside');
    await user.type(dialog.getByLabelText('URL'), 'https://10.0.0.1/hook');
    await user.click(dialog.getByRole('button', { name: 'Add webhook' }));
    expect(await dialog.findByRole('alert')).toHaveTextContent('non-public address');
    expect(dialog.queryByLabelText('Signing secret')).toBeNull();
  });

  it('deletes a target after asking, and says why one in use stays', async () => {
    let inUse = true;
    server.use(
      serve('alerts.deleteWebhook', () => {
        if (inUse)
          return apiError(
            400,
            'invalid_request',
            'Rules send to this webhook (Declines): choose another channel for them first.',
          );
        targets = [];
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { user, region } = await panel();
    await user.click(region.getByRole('button', { name: 'Delete Ops channel' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Delete “Ops channel”?' }));
    await user.click(dialog.getByRole('button', { name: 'Delete webhook' }));
    expect(await dialog.findByRole('alert')).toHaveTextContent(
      'Rules send to this webhook (Declines)',
    );
    inUse = false;
    await user.click(dialog.getByRole('button', { name: 'Delete webhook' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await region.findByText('No webhook targets yet.')).toBeInTheDocument();
    expect(requestsTo('/api/alerts/webhooks/wh1', 'DELETE')).toHaveLength(2);
  });

  it('adding one asks for a second factor when the BFF wants one (step_up_required), then adds it once more', async () => {
    server.use(
      serve('alerts.createWebhook', async ({ request }) => {
        if (requestsTo('/api/alerts/webhooks', 'POST').length === 1) {
          return apiError(401, 'step_up_required', 'Confirm it is you with a second factor.', {
            secondFactor: { methods: ['totp'] },
          });
        }
        const body = (await request.clone().json()) as { name: string; url: string };
        return HttpResponse.json({ ...ops, id: 'wh2', ...body, secret: SECRET }, { status: 201 });
      }),
      serve('session.stepUp', () => HttpResponse.json(adminSession())),
    );
    const { user, region } = await panel();
    await user.click(region.getByRole('button', { name: 'Add webhook' }));
    const form = within(screen.getByRole('dialog', { name: 'Add a webhook' }));
    await user.type(form.getByLabelText('Name'), 'Finance');
    await user.type(form.getByLabelText('URL'), 'https://hooks.example.test/finance');
    await user.click(form.getByRole('button', { name: 'Add webhook' }));

    const check = within(await screen.findByRole('dialog', { name: 'Confirm it is you' }));
    expect(check.getByText(/Adding or removing a webhook target needs a recent/)).toBeVisible();
    await user.type(check.getByLabelText('Second-factor code'), '123456');

    const shown = within(await screen.findByRole('dialog', { name: 'Finance is added' }));
    expect(shown.getByLabelText('Signing secret')).toHaveValue(SECRET);
    expect(await requestsTo('/api/session/step-up', 'POST')[0]?.json()).toEqual({ totp: '123456' });
    const posts = requestsTo('/api/alerts/webhooks', 'POST');
    expect(posts).toHaveLength(2);
    expect(await posts[1]?.json()).toEqual({
      name: 'Finance',
      url: 'https://hooks.example.test/finance',
    });
  });

  it('deleting one asks for a second factor; closing the check deletes nothing and says nothing went wrong', async () => {
    server.use(
      serve('alerts.deleteWebhook', () =>
        apiError(401, 'step_up_required', 'Confirm it is you with a second factor.', {
          secondFactor: { methods: ['totp'] },
        }),
      ),
    );
    const { user, region } = await panel();
    await user.click(region.getByRole('button', { name: 'Delete Ops channel' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Delete “Ops channel”?' }));
    await user.click(dialog.getByRole('button', { name: 'Delete webhook' }));
    const check = within(await screen.findByRole('dialog', { name: 'Confirm it is you' }));
    await user.click(check.getByRole('button', { name: 'Cancel' }));
    const back = within(await screen.findByRole('dialog', { name: 'Delete “Ops channel”?' }));
    expect(back.queryByRole('alert')).toBeNull();
    expect(requestsTo('/api/alerts/webhooks/wh1', 'DELETE')).toHaveLength(1);
    expect(region.getByText('Ops channel')).toBeInTheDocument();
  });

  it('an admin chooses a target in a rule’s form; it is sent as the rule’s webhookTargetId', async () => {
    server.use(
      serve('alerts.createRule', async ({ request }) =>
        HttpResponse.json(alertRule({ ...((await request.clone().json()) as object), id: 'new' }), {
          status: 201,
        }),
      ),
    );
    const { user } = await panel();
    await user.click(screen.getByRole('button', { name: 'New rule' }));
    const form = within(
      screen.getByRole('heading', { name: 'New alert rule' }).closest('form') as HTMLElement,
    );
    await user.type(form.getByLabelText('Name'), 'Declines to ops');
    await user.selectOptions(form.getByLabelText('Webhook'), 'Ops channel');
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(requestsTo('/api/alerts/rules', 'POST')).toHaveLength(1));
    expect(await requestsTo('/api/alerts/rules', 'POST')[0]?.json()).toMatchObject({
      name: 'Declines to ops',
      channels: { inbox: true, email: false, webhookTargetId: 'wh1' },
    });
  });

  it('finance sees no webhook targets and no webhook choice, and the list is never asked for', async () => {
    renderApp('/alerts', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Alert rules', level: 1 });
    await (await screen.findByRole('button', { name: 'New rule' })).click();
    expect(await screen.findByRole('heading', { name: 'New alert rule' })).toBeVisible();
    expect(screen.queryByRole('region', { name: 'Webhook targets' })).toBeNull();
    expect(screen.queryByLabelText('Webhook')).toBeNull();
    expect(requestsTo('/api/alerts/webhooks')).toHaveLength(0);
    expect(screen.queryByText(/coming|not yet sent/i)).toBeNull();
  });
});
