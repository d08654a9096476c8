import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { secondFactorsQueryOptions } from '../../features/security/api/get-second-factors';
import { securityPolicyQueryOptions } from '../../features/security/api/get-security-policy';
import { SecurityScreen } from '../../features/security/components/security-screen';
import { sessionQueryOptions } from '../../features/session/api/get-session';

export const Route = createFileRoute('/_app/security')({
  // The loader comes with the screen's code: nothing of this screen is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  loader: ({ context }) =>
    Promise.all([
      context.queryClient.ensureQueryData(secondFactorsQueryOptions()),
      // Admins set it here; everyone may read it.
      context.session.role === 'admin'
        ? context.queryClient.ensureQueryData(securityPolicyQueryOptions())
        : undefined,
    ]),
  component: SecurityRoute,
});

function SecurityRoute() {
  const { data: factors } = useSuspenseQuery(secondFactorsQueryOptions());
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  return <SecurityScreen factors={factors} session={session} />;
}
