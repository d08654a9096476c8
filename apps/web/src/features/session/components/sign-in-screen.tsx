import type { SessionResponse } from '@card-console/shared/api/session';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from '@tanstack/react-router';
import { useDocumentTitle } from '../../../components/use-document-title';
import { safeRedirect } from '../../../lib/safe-redirect';
import { metaQueryOptions } from '../api/get-meta';
import { sessionQueryOptions } from '../api/get-session';
import { SignInForm } from './sign-in-form';

interface SignInScreenProps {
  redirect: string | undefined;
  expired: boolean;
}

export function SignInScreen({ redirect, expired }: SignInScreenProps) {
  useDocumentTitle('Sign in');
  const queryClient = useQueryClient();
  const router = useRouter();
  // The sign-in page must work even if /api/meta does not: it only adds the demo accounts.
  const meta = useQuery(metaQueryOptions());
  const demoAccounts = meta.data?.mode === 'demo' ? (meta.data.demoAccounts ?? []) : [];

  const onSignedIn = (session: SessionResponse) => {
    queryClient.setQueryData(sessionQueryOptions().queryKey, session);
    void router.navigate({ href: safeRedirect(redirect), replace: true });
  };

  return (
    <main className="sign-in" id="main">
      <div className="sign-in-panel">
        <h1>Card Console</h1>
        <p className="muted">Sign in to manage the company card program.</p>
        {expired ? (
          <p className="notice" role="status">
            Your session ended. Sign in again to continue where you were.
          </p>
        ) : null}
        <SignInForm demoAccounts={demoAccounts} onSignedIn={onSignedIn} />
      </div>
    </main>
  );
}
