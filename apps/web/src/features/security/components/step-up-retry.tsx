import type { StepUpMethod } from '@card-console/shared/api/session';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { apiProblem } from '../../../lib/api-error';
import { sessionQueryOptions } from '../../session/api/get-session';
import { StepUpForm } from './step-up-form';

/** The person closed the second-factor check: the change is not made, and nothing is wrong. */
export class StepUpCancelled extends Error {
  constructor() {
    super('The second-factor check was cancelled.');
    this.name = 'StepUpCancelled';
  }
}

export function isStepUpCancelled(error: unknown): boolean {
  return error instanceof StepUpCancelled;
}

interface Asking {
  methods: readonly StepUpMethod[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface StepUpRetryOptions {
  /** Why the check is asked for, shown above the code. */
  intro: string;
  /** The screen the identity provider sends a single sign-on person back to. */
  returnTo: string;
}

/**
 * Changes that need a recent second factor (people, webhook targets). `guarded(change)` makes
 * the change; when the BFF answers 401 `step_up_required` it asks for a check (`prompt`,
 * rendered where the caller wants it) and, once the check passes, makes the change once more.
 * Closing the check rejects with StepUpCancelled.
 */
export function useStepUpRetry({ intro, returnTo }: StepUpRetryOptions) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<Asking>();

  const guarded = useCallback(
    async <T,>(change: () => Promise<T>): Promise<T> => {
      try {
        return await change();
      } catch (error) {
        const problem = apiProblem(error, 'step_up_required');
        if (!problem) throw error;
        const fallback = queryClient.getQueryData(sessionQueryOptions().queryKey)?.stepUpMethods;
        const methods = problem.secondFactor.methods.length
          ? problem.secondFactor.methods
          : (fallback ?? ['totp']);
        await new Promise<void>((resolve, reject) => setAsking({ methods, resolve, reject }));
        return change();
      }
    },
    [queryClient],
  );

  const cancel = () => {
    setAsking(undefined);
    asking?.reject(new StepUpCancelled());
  };
  const prompt = asking ? (
    <StepUpForm
      methods={asking.methods}
      label="Confirm it is you"
      intro={intro}
      again="then make the change again"
      returnTo={returnTo}
      submitOnComplete
      onSteppedUp={() => {
        setAsking(undefined);
        asking.resolve();
      }}
      onCancel={cancel}
    />
  ) : null;
  return { guarded, prompt, cancel, asking: asking !== undefined };
}
