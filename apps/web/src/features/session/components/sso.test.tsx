import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { productionMeta, ssoMeta } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serveSignedOut } from '../../../test/server';

describe('single sign-on', () => {
  it('offers "Sign in with SSO" beside the password form, back to where the person was going', async () => {
    serveSignedOut(ssoMeta({ passwordSignIn: true }));
    renderApp('/cards?status=active');
    const sso = await screen.findByRole('link', { name: 'Sign in with SSO' });
    // A full-page trip to the provider (not a fetch), carrying the checked return path.
    expect(sso).toHaveAttribute(
      'href',
      `/api/sso/start?returnTo=${encodeURIComponent('/cards?status=active')}`,
    );
    expect(screen.getByText('With your Acme Okta account.')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('with password sign-in off shows only the SSO button', async () => {
    serveSignedOut(ssoMeta({ passwordSignIn: false }));
    renderApp('/sign-in');
    expect(await screen.findByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute(
      'href',
      `/api/sso/start?returnTo=${encodeURIComponent('/overview')}`,
    );
    expect(screen.queryByLabelText('Email')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('without SSO configured shows no SSO button', async () => {
    serveSignedOut(productionMeta);
    renderApp('/sign-in');
    await screen.findByRole('button', { name: 'Sign in' });
    await waitFor(() => expect(requestsTo('/api/meta')).toHaveLength(1));
    expect(screen.queryByRole('link', { name: /SSO/ })).not.toBeInTheDocument();
  });

  it('never sends the provider back to another site', async () => {
    serveSignedOut(ssoMeta());
    renderApp('/sign-in?redirect=%22%2F%2Fevil.example%2F%22');
    expect(await screen.findByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute(
      'href',
      `/api/sso/start?returnTo=${encodeURIComponent('/overview')}`,
    );
  });

  it('after a failed sign-on (?sso=failed) says so clearly and offers it again', async () => {
    serveSignedOut(ssoMeta({ passwordSignIn: true }));
    renderApp('/sign-in?sso=failed');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Single sign-on did not complete. Try again, or sign in with your email and password',
    );
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toBeInTheDocument();
  });

  it.each([
    ['unavailable', 'The single sign-on provider could not be reached. Try again, or sign in'],
    [
      'busy',
      'Too many single sign-on attempts came from your network just now. Try again in a minute, or sign in',
    ],
  ])('after ?sso=%s says what happened and when to try again', async (outcome, text) => {
    serveSignedOut(ssoMeta({ passwordSignIn: true }));
    renderApp(`/sign-in?sso=${outcome}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(screen.getByRole('link', { name: 'Sign in with SSO' })).toBeInTheDocument();
  });

  it('an outcome it does not know shows no failure', async () => {
    serveSignedOut(ssoMeta());
    renderApp('/sign-in?sso=%3Cscript%3E');
    await screen.findByRole('link', { name: 'Sign in with SSO' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('without ?sso=failed shows no failure', async () => {
    serveSignedOut(ssoMeta());
    renderApp('/sign-in');
    await screen.findByRole('link', { name: 'Sign in with SSO' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('no access', () => {
  it('explains that the company account has no access, what to do, and links back to sign in', async () => {
    serveSignedOut(ssoMeta());
    const { user, router } = renderApp('/no-access');
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Your company account has no access to Card Console',
      }),
    ).toBeInTheDocument();
    expect(await screen.findByText(/with your Acme Okta account/)).toBeInTheDocument();
    expect(screen.getByText(/Ask an administrator to add you to the right group/)).toBeVisible();
    expect(document.title).toBe('No access · Card Console');
    // Outside the signed-in layout: no navigation, and no "who am I" asked.
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(requestsTo('/api/session')).toHaveLength(0);

    await user.click(screen.getByRole('link', { name: 'Back to sign in' }));
    expect(await screen.findByRole('link', { name: 'Sign in with SSO' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/sign-in');
  });
});
