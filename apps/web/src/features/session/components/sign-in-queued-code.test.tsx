// Six digits typed while the password's answer is still awaited are not dropped: the code field
// can appear meanwhile (the demo accounts arriving after the press), and the person types on.
import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { expect, it, vi } from 'vitest';
import { createQueryClient } from '../../../lib/query-client';
import { adminSession, demoMeta } from '../../../test/fixtures';
import { apiError, requestsTo, serve, server } from '../../../test/server';
import { SignInForm } from './sign-in-form';

it('sends a code typed while the password alone was on its way, once the answer asks for it', async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const bodies: unknown[] = [];
  server.use(
    serve('meta.demoAdminCode', () => HttpResponse.json({ code: '654321', secondsLeft: 20 })),
    serve('session.signIn', async ({ request }) => {
      const body = (await request.json()) as { totp?: string };
      bodies.push(body);
      if (body.totp) return HttpResponse.json(adminSession({ email: 'admin@demo.test' }));
      await held;
      return apiError(401, 'second_factor_required', 'A second factor is needed.', {
        secondFactor: { methods: ['totp'] },
      });
    }),
  );
  const onSignedIn = vi.fn();
  const user = userEvent.setup();
  const page = (demoAccounts: NonNullable<typeof demoMeta.demoAccounts>) => (
    <QueryClientProvider client={createQueryClient({ retry: false })}>
      <SignInForm demoAccounts={demoAccounts} onSignedIn={onSignedIn} />
    </QueryClientProvider>
  );
  const view = render(page([]));
  await user.type(screen.getByLabelText('Email'), 'admin@demo.test');
  await user.type(screen.getByLabelText('Password'), 'demo-password{Enter}');
  await waitFor(() => expect(bodies).toHaveLength(1));
  // The demo accounts arrive: the admin's code field shows while the answer is awaited.
  view.rerender(page(demoMeta.demoAccounts ?? []));
  await user.type(await screen.findByLabelText('Second-factor code'), '123456');
  release();
  await waitFor(() => expect(onSignedIn).toHaveBeenCalledTimes(1));
  expect(bodies).toEqual([
    { email: 'admin@demo.test', password: 'demo-password' },
    { email: 'admin@demo.test', password: 'demo-password', totp: '123456' },
  ]);
  expect(requestsTo('/api/session', 'POST')).toHaveLength(2);
  expect(screen.queryByRole('alert')).not.toBeInTheDocument();
});
