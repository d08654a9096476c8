import type { SecondFactorsResponse } from '@card-console/shared/api/security';
import type { SessionResponse } from '@card-console/shared/api/session';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useDocumentTitle } from '../../../components/use-document-title';
import { PasskeysSection } from './passkeys-section';
import { TotpSetting } from './totp-setting';

interface SecurityScreenProps {
  factors: SecondFactorsResponse;
  session: SessionResponse;
}

/** An admin's second factors: passkeys (preferred) and, for local accounts, TOTP. */
export function SecurityScreen({ factors, session }: SecurityScreenProps) {
  useDocumentTitle('Security');
  const [result, setResult] = useState('');
  return (
    <section aria-labelledby="security-title" className="security">
      <div className="screen-header">
        <h1 id="security-title">Security</h1>
      </div>
      <p className="muted">
        How you confirm it is you
        {session.method === 'sso' ? ' after signing in with SSO' : ' when you sign in'}, before
        revealing card details, and before changing anything here. Every change here is recorded in
        the <Link to="/audit">audit trail</Link>.
      </p>
      {/* Always in the page, so each new result is announced. */}
      <div role="status" aria-live="polite">
        {result ? <p className="notice">{result}</p> : null}
      </div>
      <PasskeysSection factors={factors} session={session} onResult={setResult} />
      {factors.totp.available ? (
        <TotpSetting factors={factors} session={session} onResult={setResult} />
      ) : null}
    </section>
  );
}
