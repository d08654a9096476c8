import type { SessionResponse } from '@card-console/shared/api/session';
import { useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { isSteppedUp } from '../../session';
import { securityPolicyQueryOptions } from '../api/get-security-policy';
import { updateSecurityPolicy } from '../api/update-security-policy';
import { describeFactorError } from './describe-factor-error';
import { GuardedActionDialog } from './guarded-action-dialog';

interface SecurityPolicySettingProps {
  session: SessionResponse;
  onResult: (message: string) => void;
}

/**
 * An admin's choice: whether everyone must have a second factor. Turning it on or off asks what
 * it does first, and a second-factor check as a role change in People does.
 */
export function SecurityPolicySetting({ session, onResult }: SecurityPolicySettingProps) {
  const queryClient = useQueryClient();
  const hintId = useId();
  const { data: policy } = useSuspenseQuery(securityPolicyQueryOptions());
  const [asking, setAsking] = useState<boolean | undefined>();
  const on = policy.requireSecondFactor;

  const apply = async (next: boolean) => {
    const answer = await updateSecurityPolicy(next);
    queryClient.setQueryData(securityPolicyQueryOptions().queryKey, answer);
    setAsking(undefined);
    onResult(
      next
        ? 'Everyone now needs a second factor. People without one set it up at their next sign-in.'
        : 'A second factor is now required of admins only.',
    );
  };

  return (
    <section className="panel" aria-labelledby="policy-title">
      <h2 id="policy-title">For everyone</h2>
      <p className="muted" id={hintId}>
        Admins always confirm a second factor. When this is on, finance people need one too: anyone
        without one is asked to add it at their next sign-in and can do nothing else until they do.
      </p>
      <p>
        <strong>
          {on
            ? 'A second factor is required for everyone.'
            : 'A second factor is required for admins only.'}
        </strong>
      </p>
      <button type="button" aria-describedby={hintId} onClick={() => setAsking(!on)}>
        {on ? 'Stop requiring it for everyone' : 'Require a second factor for everyone'}
      </button>
      {asking !== undefined ? (
        <GuardedActionDialog
          title={asking ? 'Require a second factor for everyone' : 'Require it of admins only'}
          actionLabel={asking ? 'Require for everyone' : 'Require of admins only'}
          stepUpIntro="Confirm it is you; the change is then made."
          again="then press the button again"
          needsStepUp={!isSteppedUp(session)}
          methods={session.stepUpMethods}
          run={() => apply(asking)}
          describeError={(error) => describeFactorError(error)}
          onClose={() => setAsking(undefined)}
        >
          <p>
            {asking
              ? 'Everyone who signs in from now on needs a passkey or an authenticator app. People without one are taken to Security to add it before they can do anything else. People signed in now are asked at their next sign-in.'
              : 'Finance people will be able to sign in with their password alone again, unless they have set up a second factor themselves.'}
          </p>
        </GuardedActionDialog>
      ) : null}
    </section>
  );
}
