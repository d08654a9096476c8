import type { SecondFactorsResponse } from '@card-console/shared/api/security';
import type { SessionResponse } from '@card-console/shared/api/session';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useDocumentTitle } from '../../../components/use-document-title';
import { PasskeysSection } from './passkeys-section';
import { SecurityPolicySetting } from './security-policy-setting';
import { TotpSetting } from './totp-setting';
import { TotpSetup } from './totp-setup';

interface SecurityScreenProps {
  factors: SecondFactorsResponse;
  session: SessionResponse;
}

/**
 * A person's own second factors, whatever their role: passkeys (preferred) and, for local
 * accounts with an authenticator app, TOTP; for admins, whether everyone must have one.
 */
export function SecurityScreen({ factors, session }: SecurityScreenProps) {
  useDocumentTitle('Security');
  const [result, setResult] = useState('');
  const admin = session.role === 'admin';
  const hasFactor = factors.passkeys.length > 0 || factors.totp.enabled;
  return (
    <section aria-labelledby="security-title" className="security">
      <div className="screen-header">
        <h1 id="security-title">Security</h1>
      </div>
      {session.secondFactorEnrolmentRequired ? (
        <p className="warning" role="alert">
          <strong>Your organisation requires a second factor.</strong> Add a passkey or set up an
          authenticator app below to continue (a passkey uses this device's screen lock or a
          security key). Until then you can only use this page.
        </p>
      ) : null}
      <p className="muted">
        {hasFactor || admin
          ? 'How you confirm it is you'
          : 'Add a second factor to confirm it is you'}
        {session.method === 'sso' ? ' after signing in with SSO' : ' when you sign in'}
        {admin ? ', before revealing card details,' : ''} and before changing anything here
        {hasFactor || admin
          ? '.'
          : ': someone who learns your password still cannot sign in as you.'}{' '}
        {admin ? (
          <>
            Every change here is recorded in the <Link to="/audit">audit trail</Link>.
          </>
        ) : (
          'Every change here is recorded in the audit trail.'
        )}
      </p>
      {/* Always in the page, so each new result is announced. */}
      <div role="status" aria-live="polite">
        {result ? <p className="notice">{result}</p> : null}
      </div>
      <PasskeysSection factors={factors} session={session} onResult={setResult} />
      {factors.totp.available ? (
        <TotpSetting factors={factors} session={session} onResult={setResult} />
      ) : session.method !== 'sso' ? (
        <section className="panel" aria-labelledby="totp-title">
          <h2 id="totp-title">Authenticator app</h2>
          <p>
            An app on your phone (such as Google Authenticator, 1Password or Authy) shows a new
            6-digit code every 30 seconds; you type it to confirm it is you.
          </p>
          <TotpSetup session={session} replacing={false} onResult={setResult} />
        </section>
      ) : null}
      {admin ? <SecurityPolicySetting session={session} onResult={setResult} /> : null}
    </section>
  );
}
