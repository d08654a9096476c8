import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { alertRulesQueryOptions } from '../../features/alerts/api/get-alert-rules';
import { AlertRulesScreen } from '../../features/alerts/components/alert-rules-screen';
import { sessionQueryOptions } from '../../features/session/api/get-session';

export const Route = createFileRoute('/_app/alerts')({
  // The loader comes with the screen's code: nothing of this screen is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  loader: ({ context }) => context.queryClient.ensureQueryData(alertRulesQueryOptions()),
  component: AlertRulesRoute,
});

function AlertRulesRoute() {
  const { data: rules } = useSuspenseQuery(alertRulesQueryOptions());
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  return <AlertRulesScreen rules={rules} isAdmin={session.role === 'admin'} />;
}
