import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useSecondsUntil } from '../../../components/use-countdown';
import { demoAdminCodeQueryOptions } from '../api/get-demo-admin-code';

interface DemoAdminCodeProps {
  /** Puts the code (six digits) in the sign-in form. */
  onUse: (code: string) => void;
}

/**
 * Demo mode only, loaded on its own (sign-in-form.tsx): the demo admin's current code from the
 * BFF, so trying the demo needs no authenticator app. Two `<dl>` rows of the admin's account.
 */
export default function DemoAdminCode({ onUse }: DemoAdminCodeProps) {
  const labelId = useId();
  const { data, dataUpdatedAt } = useQuery(demoAdminCodeQueryOptions());
  const seconds = useSecondsUntil(data ? dataUpdatedAt + data.secondsLeft * 1000 : undefined);
  // Nothing rather than an error: the secret and an authenticator app still do.
  if (!data) return null;
  return (
    <>
      <dt id={labelId}>Demo admin’s code</dt>
      <dd className="demo-code">
        {/* A timer is not announced as it changes: read when reached, not every second. */}
        <span role="timer" aria-labelledby={labelId}>
          <code>{`${data.code.slice(0, 3)} ${data.code.slice(3)}`}</code> · {seconds} s
        </span>
        <button type="button" className="link-button" onClick={() => onUse(data.code)}>
          Fill in the code
        </button>
      </dd>
    </>
  );
}
