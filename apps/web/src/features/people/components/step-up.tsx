import { useStepUpRetry as useSecondFactorRetry } from '../../security';

export { isStepUpCancelled, StepUpCancelled } from '../../security';

/** Changes to people need a recent second factor: the security feature's retry, in people's words. */
export const useStepUpRetry = () =>
  useSecondFactorRetry({
    intro:
      'Changes to people need a recent second-factor check. The change is made once it passes.',
    returnTo: '/people',
  });
