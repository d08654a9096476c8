import type { AlertRuleView } from '@card-console/shared/api/alerts';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { adminSession, card, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';
import { alertRule } from '../test/alert-fixtures';

function serveRules(items: AlertRuleView[]) {
  server.use(serve('alerts.rules', () => HttpResponse.json({ items })));
}

beforeEach(() => {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    // Admins see the webhook targets below the rules.
    serve('alerts.webhooks', () => HttpResponse.json({ items: [] })),
  );
});

async function openNewRule() {
  const view = renderApp('/alerts', { session: financeSession() });
  await view.user.click(await screen.findByRole('button', { name: 'New rule' }));
  expect(screen.getByLabelText('Name')).toHaveFocus();
  const form = screen.getByRole('heading', { name: 'New alert rule' }).closest('form');
  if (!form) throw new Error('no form');
  return { ...view, form: within(form) };
}

describe('alert rules', () => {
  it('lists your rules and the team’s; finance reads team rules without changing them', async () => {
    serveRules([
      alertRule({ id: 'r1', name: 'My declines' }),
      alertRule({
        id: 'r2',
        name: 'Big charges',
        kind: 'amount_above',
        amountCents: 50_000,
        team: true,
      }),
    ]);
    renderApp('/alerts', { session: financeSession() });
    const mine = await screen.findByRole('region', { name: 'Your rules' });
    expect(within(mine).getByText('My declines', { selector: 'strong' })).toBeInTheDocument();
    expect(within(mine).getByRole('button', { name: 'Edit My declines' })).toBeInTheDocument();
    const team = screen.getByRole('region', { name: 'Team rules' });
    expect(within(team).getByText('Big charges', { selector: 'strong' })).toBeInTheDocument();
    expect(within(team).getByText('Team')).toBeInTheDocument();
    expect(within(team).getByText('Charges over $500.00 · inbox')).toBeInTheDocument();
    expect(within(team).queryByRole('button')).toBeNull();
  });

  it('says what a rule on one card or sub account watches, by name', async () => {
    const [sub] = subAccounts;
    if (!sub) throw new Error('no sub account fixture');
    serveRules([
      alertRule({ id: 'r1', name: 'Travel declines', cardId: 'card_1' }),
      alertRule({
        id: 'r2',
        name: 'Low',
        kind: 'balance_below',
        amountCents: 10_000,
        subAccountId: sub.id,
      }),
    ]);
    server.use(serve('cards.get', () => HttpResponse.json(card())));
    renderApp('/alerts', { session: financeSession() });
    expect(
      await screen.findByText('A charge is declined · card Travel card (•••• 4242) · inbox'),
    ).toBeInTheDocument();
    expect(
      await screen.findByText(`Balance under $100.00 · sub account ${sub.name} · inbox`),
    ).toBeInTheDocument();
  });

  it('"g l" goes to the rules screen from anywhere (it is not in the navigation)', async () => {
    serveRules([]);
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Sub accounts' });
    await user.keyboard('gl');
    expect(await screen.findByRole('heading', { name: 'Alert rules', level: 1 })).toBeVisible();
  });

  it('"Send test" sends a test of the rule and says where it went; the bell counts it at once', async () => {
    serveRules([alertRule({ id: 'r1', name: 'My declines' })]);
    let unread = 0;
    server.use(
      serve('alerts.unreadCount', () => HttpResponse.json({ unread })),
      serve('alerts.testRule', () => {
        unread = 1;
        return HttpResponse.json(
          { alertId: 'a1', inbox: true, email: 'finance@example.test', webhook: null },
          { status: 201 },
        );
      }),
    );
    const { user } = renderApp('/alerts', { session: financeSession() });
    await user.click(await screen.findByRole('button', { name: 'Send test of My declines' }));
    const mine = screen.getByRole('region', { name: 'Your rules' });
    expect(
      await within(mine).findByText(
        'Test sent to your inbox and an email to finance@example.test. Emails and webhook posts leave within seconds.',
      ),
    ).toHaveAttribute('role', 'status');
    expect(requestsTo('/api/alerts/rules/r1/test', 'POST')).toHaveLength(1);
    expect(await screen.findByRole('button', { name: 'Alerts, 1 unread' })).toBeInTheDocument();
  });

  it('a test refused (too many a minute) says why, next to the rule', async () => {
    serveRules([alertRule({ id: 'r1', name: 'My declines' })]);
    server.use(
      serve('alerts.testRule', () =>
        apiError(429, 'rate_limited', 'Too many test alerts; wait a minute.', {
          retryAfterSeconds: 40,
        }),
      ),
    );
    const { user } = renderApp('/alerts', { session: financeSession() });
    await user.click(await screen.findByRole('button', { name: 'Send test of My declines' }));
    expect(await screen.findByText('Too many test alerts; wait a minute.')).toBeVisible();
  });

  it('an admin may change team rules', async () => {
    serveRules([alertRule({ id: 'r2', name: 'Big charges', team: true })]);
    renderApp('/alerts', { session: adminSession() });
    const team = await screen.findByRole('region', { name: 'Team rules' });
    expect(within(team).getByRole('button', { name: 'Edit Big charges' })).toBeInTheDocument();
  });

  it('shows the shared schema’s messages next to their fields and sends nothing', async () => {
    serveRules([]);
    const { user, form } = await openNewRule();
    await user.selectOptions(form.getByLabelText('Alert me when'), 'amount_above');
    await user.type(form.getByLabelText('Amount over (USD)'), '12.345');
    await user.click(form.getByRole('checkbox', { name: 'In-app inbox (the bell)' }));
    await user.click(form.getByRole('checkbox', { name: /Daily email digest/ }));
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    // No name is no error: the rule would be saved as its placeholder says.
    expect(form.getByLabelText('Name')).not.toHaveAttribute('aria-invalid');
    expect(form.getByLabelText('Amount over (USD)')).toHaveAttribute('aria-invalid', 'true');
    expect(form.getByText('Choose at least one channel: inbox, email or a webhook')).toBeVisible();
    expect(form.getByRole('checkbox', { name: /Daily email digest/ })).toHaveAccessibleDescription(
      'A daily digest is sent by email: turn email on',
    );
    expect(requestsTo('/api/alerts/rules', 'POST')).toHaveLength(0);
  });

  it('a share outside 1–100 is refused with the schema’s words', async () => {
    serveRules([]);
    const { user, form } = await openNewRule();
    await user.selectOptions(form.getByLabelText('Alert me when'), 'utilisation_above');
    await user.type(form.getByLabelText('Name'), 'Near the limit');
    await user.type(form.getByLabelText("Share of the card's limit (%)"), '150');
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    expect(form.getByLabelText("Share of the card's limit (%)")).toHaveAccessibleDescription(
      'A whole number from 1 to 100 Share must be from 1 to 100',
    );
  });

  it('sends the amount typed in dollars as whole cents, with the sub account chosen', async () => {
    serveRules([]);
    server.use(
      serve('alerts.createRule', async ({ request }) =>
        HttpResponse.json(alertRule({ ...((await request.clone().json()) as object), id: 'new' }), {
          status: 201,
        }),
      ),
    );
    const { user, form } = await openNewRule();
    await user.type(form.getByLabelText('Name'), 'Big charges');
    await user.selectOptions(form.getByLabelText('Alert me when'), 'amount_above');
    await user.type(form.getByLabelText('Amount over (USD)'), '1,234.50');
    const [first] = subAccounts;
    await user.selectOptions(form.getByLabelText('Sub account'), first?.id ?? '');
    await user.click(form.getByRole('checkbox', { name: 'Email' }));
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(requestsTo('/api/alerts/rules', 'POST')).toHaveLength(1));
    expect(await requestsTo('/api/alerts/rules', 'POST')[0]?.json()).toEqual({
      kind: 'amount_above',
      name: 'Big charges',
      amountCents: 123_450,
      subAccountId: first?.id,
      channels: { inbox: true, email: true, webhookTargetId: null },
      digest: false,
      enabled: true,
      team: false,
      cardOwner: false,
    });
    await waitFor(() =>
      expect(screen.queryByRole('heading', { name: 'New alert rule' })).toBeNull(),
    );
    expect(screen.getByRole('button', { name: 'New rule' })).toHaveFocus();
  });

  it('a rule left unnamed is saved with the name its field shows, from what it watches', async () => {
    serveRules([]);
    server.use(
      serve('alerts.createRule', async ({ request }) =>
        HttpResponse.json(alertRule({ ...((await request.clone().json()) as object), id: 'new' }), {
          status: 201,
        }),
      ),
    );
    const { user, form } = await openNewRule();
    expect(form.getByLabelText('Name')).toHaveAttribute('placeholder', 'Declines');
    await user.selectOptions(form.getByLabelText('Alert me when'), 'amount_above');
    await user.type(form.getByLabelText('Amount over (USD)'), '500');
    expect(form.getByLabelText('Name')).toHaveAttribute('placeholder', 'Charges over $500.00');
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(requestsTo('/api/alerts/rules', 'POST')).toHaveLength(1));
    expect(await requestsTo('/api/alerts/rules', 'POST')[0]?.json()).toMatchObject({
      kind: 'amount_above',
      name: 'Charges over $500.00',
      amountCents: 50_000,
    });
  });

  it('shows the server’s 400 detail', async () => {
    serveRules([]);
    server.use(
      serve('alerts.createRule', () =>
        apiError(400, 'invalid_body', 'name must not look like a card number'),
      ),
    );
    const { user, form } = await openNewRule();
    await user.type(form.getByLabelText('Name'), '4242 4242 4242 4242');
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    expect(await form.findByRole('alert')).toHaveTextContent(
      'name must not look like a card number',
    );
  });

  it('says why a rule past the cap or the same as another is refused (409), and offers no reload', async () => {
    serveRules([]);
    const refusals = [
      apiError(
        409,
        'too_many_alert_rules',
        'You have 50 alert rules, the most kept. Remove one that is no longer needed before adding another.',
      ),
      apiError(
        409,
        'alert_rule_exists',
        'This rule is the same as “My declines” (same kind, amount, scope and webhook): change that one instead.',
      ),
    ];
    server.use(serve('alerts.createRule', () => refusals.shift()));
    const { user, form } = await openNewRule();
    await user.type(form.getByLabelText('Name'), 'Declines');
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    expect(await form.findByRole('alert')).toHaveTextContent(
      'You have 50 alert rules, the most kept. Remove one that is no longer needed',
    );
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    await waitFor(() =>
      expect(form.getByRole('alert')).toHaveTextContent(
        'This rule is the same as “My declines” (same kind, amount, scope and webhook): change that one instead.',
      ),
    );
    expect(form.queryByRole('button', { name: 'Reload the rule' })).toBeNull();
  });

  it('a change made meanwhile (409) shows the rule as it is; Reload takes it and its version', async () => {
    const mine = alertRule({ id: 'r1', name: 'Declines', version: 2 });
    const current = alertRule({ id: 'r1', name: 'Declines on travel', version: 3, enabled: false });
    serveRules([mine]);
    server.use(
      serve('alerts.updateRule', { id: 'r1' }, () =>
        apiError(409, 'alert_rule_changed', 'The rule changed meanwhile', { current }),
      ),
    );
    const { user } = renderApp('/alerts', { session: financeSession() });
    await user.click(await screen.findByRole('button', { name: 'Edit Declines' }));
    const name = screen.getByLabelText('Name');
    await user.clear(name);
    await user.type(name, 'Declines, all cards');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'Someone changed this rule while you were editing it. It is now: Declines on travel — A charge is declined · inbox (disabled).',
    );
    expect((await requestsTo('/api/alerts/rules/r1', 'PUT')[0]?.json())?.version).toBe(2);
    await user.click(within(alert).getByRole('button', { name: 'Reload the rule' }));
    expect(screen.getByLabelText('Name')).toHaveValue('Declines on travel');
    expect(screen.getByRole('checkbox', { name: 'Enabled' })).not.toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(requestsTo('/api/alerts/rules/r1', 'PUT')).toHaveLength(2));
    expect((await requestsTo('/api/alerts/rules/r1', 'PUT')[1]?.json())?.version).toBe(3);
  });

  it('deletes a rule after asking, naming the version it was shown at', async () => {
    serveRules([alertRule({ id: 'r1', name: 'Declines', version: 4 })]);
    server.use(
      serve('alerts.deleteRule', { id: 'r1' }, () => new HttpResponse(null, { status: 204 })),
    );
    const { user } = renderApp('/alerts', { session: financeSession() });
    await user.click(await screen.findByRole('button', { name: 'Delete Declines' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete “Declines”?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete rule' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const [sent] = requestsTo('/api/alerts/rules/r1', 'DELETE');
    expect(new URL(sent?.url ?? '').searchParams.get('version')).toBe('4');
  });
});
