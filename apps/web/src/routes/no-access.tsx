import { createFileRoute } from '@tanstack/react-router';
import { NoAccessScreen } from '../features/session/components/no-access-screen';

// Public, outside the signed-in layout: single sign-on lands here when no role applies.
export const Route = createFileRoute('/no-access')({
  component: NoAccessScreen,
});
