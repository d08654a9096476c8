import { alertRuleInputSchema } from '@card-console/shared/api/alerts';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serve, server } from '../../../test/server';
import { alertRule } from '../test/alert-fixtures';

const OWNER = "Also to the card's owner";

beforeEach(() => {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('alerts.rules', () =>
      HttpResponse.json({
        items: [alertRule({ id: 'r1', name: 'My declines', cardOwner: true })],
      }),
    ),
    serve('alerts.createRule', async ({ request }) => {
      const input = alertRuleInputSchema.parse(await request.clone().json());
      return HttpResponse.json(alertRule({ ...input, id: 'new' }), { status: 201 });
    }),
  );
});

async function openNewRule() {
  const view = renderApp('/alerts', { session: financeSession() });
  await view.user.click(await screen.findByRole('button', { name: 'New rule' }));
  const form = screen.getByRole('heading', { name: 'New alert rule' }).closest('form');
  if (!form) throw new Error('no form');
  return { ...view, form: within(form) };
}

describe("an alert rule's card owner", () => {
  it('sends each alert of a card to its owner too', async () => {
    const { user, form } = await openNewRule();
    const owner = form.getByRole('checkbox', { name: OWNER });
    expect(owner).not.toBeChecked();
    expect(owner).toHaveAccessibleDescription(
      'Each alert of a card also goes to the owner given to it: by email, and to their inbox when they sign in.',
    );
    await user.click(owner);
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(requestsTo('/api/alerts/rules', 'POST')).toHaveLength(1));
    expect(await requestsTo('/api/alerts/rules', 'POST')[0]?.json()).toMatchObject({
      kind: 'declined',
      cardOwner: true,
    });
  });

  it('a balance rule has no card, so no owner to tell: the choice is not offered', async () => {
    const { user, form } = await openNewRule();
    await user.click(form.getByRole('checkbox', { name: OWNER }));
    await user.selectOptions(form.getByLabelText('Alert me when'), 'balance_below');
    expect(form.queryByRole('checkbox', { name: OWNER })).toBeNull();
    await user.type(form.getByLabelText('Balance under (USD)'), '1000');
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(requestsTo('/api/alerts/rules', 'POST')).toHaveLength(1));
    expect(await requestsTo('/api/alerts/rules', 'POST')[0]?.json()).toMatchObject({
      kind: 'balance_below',
      cardOwner: false,
    });
  });

  it('with a daily digest the owner is not told, and the form says why', async () => {
    const { user, form } = await openNewRule();
    await user.click(form.getByRole('checkbox', { name: OWNER }));
    await user.click(form.getByRole('checkbox', { name: 'Email' }));
    await user.click(form.getByRole('checkbox', { name: /Daily email digest/ }));
    const owner = form.getByRole('checkbox', { name: OWNER });
    expect(owner).toBeDisabled();
    expect(owner).not.toBeChecked();
    expect(owner).toHaveAccessibleDescription(
      "Not with a daily digest: a card's owner is sent each alert as it comes. Turn the digest off to include them.",
    );
    // The digest off again, the owner's choice is as it was.
    await user.click(form.getByRole('checkbox', { name: /Daily email digest/ }));
    expect(form.getByRole('checkbox', { name: OWNER })).toBeChecked();
  });

  it('an owner is told by inbox or email: with neither, the form says so and sends nothing', async () => {
    const { user, form } = await openNewRule();
    await user.click(form.getByRole('checkbox', { name: OWNER }));
    await user.click(form.getByRole('checkbox', { name: 'In-app inbox (the bell)' }));
    await user.click(form.getByRole('button', { name: 'Create rule' }));
    const owner = form.getByRole('checkbox', { name: OWNER });
    expect(owner).toHaveAttribute('aria-invalid', 'true');
    expect(owner).toHaveAccessibleDescription(
      expect.stringContaining("A card's owner is told by inbox or email: turn one of them on"),
    );
    expect(requestsTo('/api/alerts/rules', 'POST')).toHaveLength(0);
  });

  it('a saved rule says it tells the owner, and opens with that choice', async () => {
    const { user } = renderApp('/alerts', { session: financeSession() });
    expect(
      await screen.findByText("A charge is declined · inbox, the card's owner"),
    ).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Edit My declines' }));
    expect(screen.getByRole('checkbox', { name: OWNER })).toBeChecked();
  });
});
