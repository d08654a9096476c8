import type { InvitationCreated } from '@card-console/shared/api/people';
import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../../lib/query-client';
import { requestsTo, serve, server } from '../../../test/server';
import { InviteDialog } from './invite-dialog';

const link = 'http://localhost:3000/join#Aq3v-_ThisIsTheOneTimeTokenOfFortyThreeCh';

/** Invites ann@example.test with the BFF answering `emailed`; the dialog showing the link. */
async function inviteAnswering(emailed: boolean) {
  const answer: InvitationCreated = {
    email: 'ann@example.test',
    role: 'finance',
    expiresAt: '2026-12-01T09:00:00Z',
    link,
    emailed,
  };
  server.use(serve('people.invite', () => HttpResponse.json(answer, { status: 201 })));
  const onInvited = vi.fn();
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <InviteDialog onClose={() => {}} onInvited={onInvited} />
    </QueryClientProvider>,
  );
  await user.type(screen.getByLabelText('Email'), 'ann@example.test');
  await user.click(screen.getByRole('button', { name: 'Invite' }));
  const shown = within(await screen.findByRole('dialog', { name: 'ann@example.test is invited' }));
  expect(requestsTo('/api/people/invitations', 'POST')).toHaveLength(1);
  expect(onInvited).toHaveBeenCalledTimes(1);
  // Emailed or not, the one-time link is there to copy.
  expect(shown.getByLabelText('Invitation link')).toHaveValue(link);
  return shown;
}

describe('InviteDialog', () => {
  it('says the link was emailed too when the BFF emailed it', async () => {
    const shown = await inviteAnswering(true);
    expect(shown.getByText('We emailed the link to ann@example.test too.')).toBeVisible();
  });

  it('says nothing about email when the BFF did not send one', async () => {
    const shown = await inviteAnswering(false);
    expect(shown.queryByText(/emailed/i)).toBeNull();
    expect(shown.getByText(/Send this link to ann@example\.test/)).toBeInTheDocument();
  });
});
