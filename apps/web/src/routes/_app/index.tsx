import { createFileRoute, redirect } from '@tanstack/react-router';

/** The landing screen for everyone: where the money goes, at a glance. */
export const Route = createFileRoute('/_app/')({
  beforeLoad: () => {
    throw redirect({ to: '/overview', replace: true });
  },
});
