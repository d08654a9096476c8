import { createFileRoute } from '@tanstack/react-router';
import { metaQueryOptions } from '../features/session/api/get-meta';
import { SignInScreen } from '../features/session/components/sign-in-screen';
import { flag, text } from '../lib/search-params';

interface SignInSearch {
  /** Where to go after signing in; checked by safeRedirect before use. */
  redirect?: string | undefined;
  /** Came here because the session ended. */
  expired?: boolean | undefined;
}

function validateSignInSearch(search: Record<string, unknown>): SignInSearch {
  return { redirect: text(search.redirect, 2000), expired: flag(search.expired) };
}

export const Route = createFileRoute('/sign-in')({
  validateSearch: validateSignInSearch,
  // Meta only adds the demo accounts: fetch it, but never let it block signing in.
  loader: ({ context }) => context.queryClient.prefetchQuery(metaQueryOptions()),
  component: SignInRoute,
});

function SignInRoute() {
  const { redirect, expired } = Route.useSearch();
  return <SignInScreen redirect={redirect} expired={expired === true} />;
}
