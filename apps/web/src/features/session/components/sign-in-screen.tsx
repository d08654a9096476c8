import type { SessionResponse } from '@card-console/shared/api/session';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from '@tanstack/react-router';
import { useDocumentTitle } from '../../../components/use-document-title';
import { safeRedirect } from '../../../lib/safe-redirect';
import { metaQueryOptions } from '../api/get-meta';
import { sessionQueryOptions } from '../api/get-session';
import { ssoStartUrl } from '../step-up';
import { SignInForm } from './sign-in-form';

interface SignInScreenProps {
  redirect: string | undefined;
  expired: boolean;
  /** The session ended as a change was sent: it was not made. */
  unsaved?: boolean;
  /** Sent back by single sign-on without a session, and why. */
  ssoOutcome: SsoOutcome | undefined;
}

export type SsoOutcome = 'failed' | 'unavailable' | 'busy';

const ssoProblem: Record<SsoOutcome, string> = {
  failed: 'Single sign-on did not complete.',
  unavailable: 'The single sign-on provider could not be reached.',
  busy: 'Too many single sign-on attempts came from your network just now.',
};

export function SignInScreen({ redirect, expired, unsaved, ssoOutcome }: SignInScreenProps) {
  useDocumentTitle('Sign in');
  const queryClient = useQueryClient();
  const router = useRouter();
  // The sign-in page must work even if /api/meta does not: then it offers the password form.
  const meta = useQuery(metaQueryOptions());
  const demoAccounts = meta.data?.mode === 'demo' ? (meta.data.demoAccounts ?? []) : [];
  const passwordSignIn = meta.data?.passwordSignIn ?? true;
  const sso = meta.data?.sso;

  const onSignedIn = (session: SessionResponse) => {
    queryClient.setQueryData(sessionQueryOptions().queryKey, session);
    void router.navigate({ href: safeRedirect(redirect), replace: true });
  };

  return (
    <main className="sign-in" id="main">
      <div className="sign-in-panel">
        <h1>Card Console</h1>
        <p className="muted">Sign in to manage the company card program.</p>
        {/* Said as it is: the page comes back, but what was typed and not saved does not. */}
        {expired && unsaved ? (
          <p className="warning" role="alert">
            Your session ended before your change was saved, so it was not saved. Sign in again to
            go back to where you were, then make it again.
          </p>
        ) : expired ? (
          <p className="notice" role="status">
            Your session ended. Sign in again to go back to where you were; anything not yet saved
            was not kept.
          </p>
        ) : null}
        {ssoOutcome ? (
          <p className="warning" role="alert">
            {ssoProblem[ssoOutcome]} Try again
            {ssoOutcome === 'busy' ? ' in a minute' : ''}
            {passwordSignIn ? ', or sign in with your email and password' : ''}; if it keeps
            failing, ask your administrator.
          </p>
        ) : null}
        {sso ? (
          <div className="sso-sign-in">
            {/* A full-page trip to the provider and back, not a fetch. */}
            <a className="button primary" href={ssoStartUrl(safeRedirect(redirect))}>
              Sign in with SSO
            </a>
            <small className="muted">With your {sso.label} account.</small>
          </div>
        ) : null}
        {sso && passwordSignIn ? (
          <p className="or-divider">
            <span>or with your email and password</span>
          </p>
        ) : null}
        {passwordSignIn ? <SignInForm demoAccounts={demoAccounts} onSignedIn={onSignedIn} /> : null}
        {!passwordSignIn && !sso ? (
          <p className="warning">
            No way to sign in is set up on this server. Ask your administrator.
          </p>
        ) : null}
      </div>
    </main>
  );
}
