import { createFileRoute, redirect } from '@tanstack/react-router';
import { metaQueryOptions } from '../features/session/api/get-meta';
import { sessionQueryOptions } from '../features/session/api/get-session';
import { SignInScreen, type SsoOutcome } from '../features/session/components/sign-in-screen';
import { safeRedirect } from '../lib/safe-redirect';
import { flag, text } from '../lib/search-params';

interface SignInSearch {
  /** Where to go after signing in; checked by safeRedirect before use. */
  redirect?: string | undefined;
  /** Came here because the session ended. */
  expired?: boolean | undefined;
  /** ...as a change was sent, which was therefore not made. */
  unsaved?: boolean | undefined;
  /** Sent back by single sign-on when it did not complete, and why. */
  sso?: SsoOutcome | undefined;
}

const ssoOutcomes: readonly SsoOutcome[] = ['failed', 'unavailable', 'busy'];

function validateSignInSearch(search: Record<string, unknown>): SignInSearch {
  return {
    redirect: text(search.redirect, 2000),
    expired: flag(search.expired),
    unsaved: flag(search.unsaved),
    sso: ssoOutcomes.find((outcome) => outcome === search.sso),
  };
}

export const Route = createFileRoute('/sign-in')({
  validateSearch: validateSignInSearch,
  // Opened while signed in (a bookmark, another tab): on to the app, or where `redirect` says.
  // Only when this page knows nothing of the session yet: the app itself comes here after
  // signing out or when the session ended, with the session it had still cached, or after
  // a 401 it has just had.
  beforeLoad: async ({ context, search }) => {
    const { queryKey } = sessionQueryOptions();
    if (context.queryClient.getQueryState(queryKey) !== undefined) return;
    const signedIn = await context.queryClient.ensureQueryData(sessionQueryOptions()).then(
      () => true,
      () => false,
    );
    if (signedIn) throw redirect({ href: safeRedirect(search.redirect), replace: true });
  },
  // Meta says which ways to sign in are on: wait for it, but a failure only leaves the form.
  loader: ({ context }) => context.queryClient.prefetchQuery(metaQueryOptions()),
  component: SignInRoute,
});

function SignInRoute() {
  const { redirect, expired, unsaved, sso } = Route.useSearch();
  return (
    <SignInScreen
      redirect={redirect}
      expired={expired === true}
      unsaved={unsaved === true}
      ssoOutcome={sso}
    />
  );
}
