import type { MetaResponse } from '@card-console/shared/api/meta';
import type { SessionResponse } from '@card-console/shared/api/session';
import { type FormEvent, useState } from 'react';
import { Field } from '../../../components/field';
import { TotpField } from '../../../components/totp-field';
import { isApiError } from '../../../lib/api-error';
import { signIn } from '../api/sign-in';

type DemoAccount = NonNullable<MetaResponse['demoAccounts']>[number];

interface SignInFormProps {
  demoAccounts: DemoAccount[];
  onSignedIn: (session: SessionResponse) => void;
}

const TOTP_CODES = new Set(['totp_required', 'invalid_totp']);

export function SignInForm({ demoAccounts, onSignedIn }: SignInFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [serverAskedTotp, setServerAskedTotp] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const isDemoAdmin = demoAccounts.some(
    (a) => a.role === 'admin' && a.email.toLowerCase() === email.trim().toLowerCase(),
  );
  const showTotp = serverAskedTotp || isDemoAdmin;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (showTotp && totp !== '' && !/^\d{6}$/.test(totp)) {
      setError('The code is the 6 digits your authenticator app shows.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const session = await signIn({ email, password, ...(totp ? { totp } : {}) });
      onSignedIn(session);
    } catch (caught) {
      if (isApiError(caught) && TOTP_CODES.has(caught.code)) {
        setServerAskedTotp(true);
        setError(
          caught.code === 'totp_required'
            ? 'Enter the 6-digit code from your authenticator app.'
            : caught.message || 'That code is not right. Try the current one.',
        );
      } else if (isApiError(caught) && caught.status === 429) {
        setError(`Too many sign-in attempts — try again in ${caught.retryAfterSeconds ?? 60} s.`);
      } else {
        setError(caught instanceof Error ? caught.message : 'Sign-in failed.');
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form className="stack" onSubmit={submit} noValidate>
        <Field label="Email">
          {(control) => (
            <input
              {...control}
              type="email"
              name="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(control) => (
            <input
              {...control}
              type="password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        {showTotp ? (
          <TotpField
            value={totp}
            onChange={setTotp}
            hint="6 digits from your authenticator app (admins)."
          />
        ) : null}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {demoAccounts.length > 0 ? (
        <DemoAccounts
          accounts={demoAccounts}
          onUse={(a) => {
            setEmail(a.email);
            setPassword(a.password);
          }}
        />
      ) : null}
    </>
  );
}

function DemoAccounts({
  accounts,
  onUse,
}: {
  accounts: DemoAccount[];
  onUse: (account: DemoAccount) => void;
}) {
  return (
    <section className="demo-accounts" aria-labelledby="demo-accounts-title">
      <h2 id="demo-accounts-title">Demo accounts</h2>
      <ul>
        {accounts.map((a) => (
          <li key={a.email}>
            <dl className="pairs">
              <dt>Email</dt>
              <dd>{a.email}</dd>
              <dt>Role</dt>
              <dd>{a.role}</dd>
              <dt>Password</dt>
              <dd>
                <code>{a.password}</code>
              </dd>
              {a.totpSecret ? (
                <>
                  <dt>TOTP secret</dt>
                  <dd>
                    <code>{a.totpSecret}</code>
                  </dd>
                </>
              ) : null}
              {a.otpauthUri ? (
                <>
                  <dt>Authenticator URI</dt>
                  <dd>
                    <code className="wrap">{a.otpauthUri}</code>
                  </dd>
                </>
              ) : null}
            </dl>
            <button type="button" onClick={() => onUse(a)}>
              Use {a.email}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
