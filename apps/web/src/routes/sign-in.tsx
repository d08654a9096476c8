import { createFileRoute } from '@tanstack/react-router';
import { metaQueryOptions } from '../features/session/api/get-meta';
import { SignInScreen } from '../features/session/components/sign-in-screen';
import { flag, text } from '../lib/search-params';

interface SignInSearch {
  /** Where to go after signing in; checked by safeRedirect before use. */
  redirect?: string | undefined;
  /** Came here because the session ended. */
  expired?: boolean | undefined;
  /** Sent back by the single sign-on callback when it did not complete. */
  sso?: 'failed' | undefined;
}

function validateSignInSearch(search: Record<string, unknown>): SignInSearch {
  return {
    redirect: text(search.redirect, 2000),
    expired: flag(search.expired),
    sso: search.sso === 'failed' ? 'failed' : undefined,
  };
}

export const Route = createFileRoute('/sign-in')({
  validateSearch: validateSignInSearch,
  // Meta says which ways to sign in are on: wait for it, but a failure only leaves the form.
  loader: ({ context }) => context.queryClient.prefetchQuery(metaQueryOptions()),
  component: SignInRoute,
});

function SignInRoute() {
  const { redirect, expired, sso } = Route.useSearch();
  return (
    <SignInScreen redirect={redirect} expired={expired === true} ssoFailed={sso === 'failed'} />
  );
}
