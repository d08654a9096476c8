// In demo mode the sign-in page shows the demo admin's current code (from the BFF), counting
// down and replaced as it runs out, and fills it in; outside demo mode it never asks for one.
import { screen, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { demoMeta, productionMeta } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serve, server, serveSignedOut } from '../../../test/server';

const CODE_PATH = '/api/meta/demo-admin-code';

/** A demo BFF handing out these codes in turn (the last one again once they are used up). */
function serveDemoCodes(...answers: { code: string; secondsLeft: number }[]) {
  serveSignedOut(demoMeta);
  let sent = 0;
  server.use(
    serve('meta.demoAdminCode', () =>
      HttpResponse.json(answers[Math.min(sent++, answers.length - 1)]),
    ),
  );
}

describe("the demo admin's code on the sign-in page", () => {
  it('shows the current code with its seconds left, labelled, beside the demo admin', async () => {
    serveDemoCodes({ code: '123456', secondsLeft: 17 });
    renderApp('/sign-in');
    const code = await screen.findByRole('timer', { name: 'Demo admin’s code' });
    expect(code).toHaveTextContent(/^123 456 · 1[67] s$/);
    // In the admin's own entry of the demo accounts, not the finance one's.
    expect(code.closest('li')).toHaveTextContent('admin@demo.test');
  });

  it('fills in the demo admin, the password and the code', async () => {
    serveDemoCodes({ code: '123456', secondsLeft: 17 });
    const { user } = renderApp('/sign-in');
    await user.click(await screen.findByRole('button', { name: 'Fill in the code' }));
    expect(screen.getByLabelText('Email')).toHaveValue('admin@demo.test');
    expect(screen.getByLabelText('Password')).toHaveValue('demo-password');
    expect(screen.getByLabelText('Second-factor code')).toHaveValue('123456');
  });

  it('keeps a typed password of the demo admin and only adds the code', async () => {
    serveDemoCodes({ code: '123456', secondsLeft: 17 });
    const { user } = renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'admin@demo.test');
    await user.type(screen.getByLabelText('Password'), 'typed');
    await user.click(await screen.findByRole('button', { name: 'Fill in the code' }));
    expect(screen.getByLabelText('Password')).toHaveValue('typed');
    expect(screen.getByLabelText('Second-factor code')).toHaveValue('123456');
  });

  it('asks for the next code once this one runs out, and shows it', async () => {
    serveDemoCodes({ code: '111111', secondsLeft: 1 }, { code: '222222', secondsLeft: 30 });
    renderApp('/sign-in');
    const code = await screen.findByRole('timer', { name: 'Demo admin’s code' });
    expect(code).toHaveTextContent(/^111 111/);
    await waitFor(() => expect(code).toHaveTextContent(/^222 222 · (30|29) s$/), {
      timeout: 3_000,
    });
    expect(requestsTo(CODE_PATH)).toHaveLength(2);
  });

  it('outside demo mode never asks for a code nor shows one', async () => {
    serveSignedOut(productionMeta);
    renderApp('/sign-in');
    await screen.findByRole('button', { name: 'Sign in' });
    await waitFor(() => expect(requestsTo('/api/meta')).toHaveLength(1));
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Fill in the code' })).not.toBeInTheDocument();
    expect(requestsTo(CODE_PATH)).toHaveLength(0);
  });
});
