import type { SecondFactorsResponse } from '@card-console/shared/api/security';
import type { SessionResponse } from '@card-console/shared/api/session';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { isApiError } from '../../../lib/api-error';
import { isSteppedUp } from '../../session';
import { sessionQueryOptions } from '../../session/api/get-session';
import { secondFactorsQueryOptions } from '../api/get-second-factors';
import { setTotpEnabled } from '../api/set-totp-enabled';
import { describeFactorError } from './describe-factor-error';
import { GuardedActionDialog } from './guarded-action-dialog';
import { TotpSetup } from './totp-setup';

interface TotpSettingProps {
  factors: SecondFactorsResponse;
  session: SessionResponse;
  onResult: (message: string) => void;
}

const LAST_FACTOR = 'Add a passkey before turning codes off: you need a way to confirm it is you.';

/**
 * Whether codes from the authenticator app are accepted. Turning them off is offered only
 * with a passkey enrolled, and says first that the app then no longer works.
 */
export function TotpSetting({ factors, session, onResult }: TotpSettingProps) {
  const queryClient = useQueryClient();
  const hintId = useId();
  const [asking, setAsking] = useState<'off' | 'on' | undefined>();
  const [error, setError] = useState<string | undefined>();
  const { enabled } = factors.totp;
  const canTurnOff = factors.passkeys.length > 0;

  const apply = async (next: boolean) => {
    const answer = await setTotpEnabled(next);
    queryClient.setQueryData(secondFactorsQueryOptions().queryKey, answer);
    void queryClient.invalidateQueries({ queryKey: sessionQueryOptions().queryKey });
    setAsking(undefined);
    onResult(next ? 'Authenticator-app codes turned on.' : 'Authenticator-app codes turned off.');
  };

  const toggle = () => {
    setError(undefined);
    if (enabled && !canTurnOff) return;
    // Turning codes back on needs only a step-up; turning them off, a confirmation as well.
    if (!enabled && isSteppedUp(session)) {
      apply(true).catch((caught: unknown) => {
        if (isApiError(caught) && caught.code === 'step_up_required') setAsking('on');
        else setError(describeFactorError(caught));
      });
      return;
    }
    setAsking(enabled ? 'off' : 'on');
  };

  return (
    <section className="panel" aria-labelledby="totp-title">
      <h2 id="totp-title">Authenticator app</h2>
      <p>
        {enabled
          ? 'On: the 6-digit codes your authenticator app shows confirm it is you.'
          : 'Off: codes from your authenticator app are not accepted; you confirm it is you with a passkey.'}
      </p>
      <div className="switch-row">
        <button
          type="button"
          role="switch"
          className="switch"
          aria-checked={enabled}
          aria-describedby={hintId}
          disabled={enabled && !canTurnOff}
          onClick={toggle}
        >
          Accept authenticator-app codes
          <span className="switch-state" aria-hidden="true">
            {enabled ? 'On' : 'Off'}
          </span>
        </button>
        <small id={hintId} className="muted">
          {enabled && !canTurnOff
            ? 'Add a passkey first: codes can be turned off only while you have one.'
            : enabled
              ? 'Turning this off means the codes your authenticator app shows no longer work.'
              : 'Turning this on lets the codes from your authenticator app work again.'}
        </small>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {session.method !== 'sso' ? (
        <TotpSetup session={session} replacing onResult={onResult} />
      ) : null}
      {asking ? (
        <GuardedActionDialog
          title={
            asking === 'off'
              ? 'Turn off authenticator-app codes'
              : 'Turn on authenticator-app codes'
          }
          actionLabel={asking === 'off' ? 'Turn off codes' : 'Turn on codes'}
          stepUpIntro={
            asking === 'off'
              ? 'Confirm it is you; codes are then turned off.'
              : 'Confirm it is you; codes are then turned on.'
          }
          again="then press Accept authenticator-app codes again"
          needsStepUp={!isSteppedUp(session)}
          methods={session.stepUpMethods}
          run={() => apply(asking === 'on')}
          describeError={(e) => describeFactorError(e, LAST_FACTOR)}
          onClose={() => setAsking(undefined)}
        >
          {asking === 'off' ? (
            <p>
              After this, the codes your authenticator app shows no longer work, here or at sign-in:
              you confirm it is you with a passkey. You can turn codes back on here.
            </p>
          ) : (
            <p>Codes from your authenticator app will confirm it is you again.</p>
          )}
        </GuardedActionDialog>
      ) : null}
    </section>
  );
}
