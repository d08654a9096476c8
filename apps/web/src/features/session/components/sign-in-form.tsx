import type { ProblemOf } from '@card-console/shared/api/error';
import type { MetaResponse } from '@card-console/shared/api/meta';
import type { SessionResponse, SignInBody } from '@card-console/shared/api/session';
import { type FormEvent, lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { TotpField } from '../../../components/totp-field';
import { apiProblem, isApiError } from '../../../lib/api-error';
import { isPasskeyError, signWithPasskey } from '../../../lib/passkey-ceremony';
import { signIn } from '../api/sign-in';
import {
  type SignInField,
  type SignInFieldErrors,
  signInFieldErrors,
  signInFieldErrorsFromServer,
} from '../sign-in-fields';
import { SecondFactorChoices } from './second-factor-choices';

type DemoAccount = NonNullable<MetaResponse['demoAccounts']>[number];
// Demo mode only, so never in the first download: fetched when the demo accounts are shown; a
// chunk that cannot load leaves the code out (the secret is shown anyway).
const DemoAdminCode = lazy(() =>
  import('./demo-admin-code').catch(() => ({ default: () => null })),
);
/** What the server asked for on 401 `second_factor_required`. */
type SecondFactor = ProblemOf<'second_factor_required'>['secondFactor'];

interface SignInFormProps {
  demoAccounts: DemoAccount[];
  onSignedIn: (session: SessionResponse) => void;
}

export function SignInForm({ demoAccounts, onSignedIn }: SignInFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [factor, setFactor] = useState<SecondFactor | undefined>();
  const [focusKey, setFocusKey] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [fieldErrors, setFieldErrors] = useState<SignInFieldErrors>({});
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // Bumped by each refused submit, which puts focus on the first field that needs something.
  const [refusals, setRefusals] = useState(0);
  const refuse = (errors: SignInFieldErrors) => {
    setFieldErrors(errors);
    setRefusals((n) => n + 1);
  };
  useEffect(() => {
    if (refusals) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refusals]);

  const isDemoAdmin = demoAccounts.some(
    (a) => a.role === 'admin' && a.email.toLowerCase() === email.trim().toLowerCase(),
  );
  // Before the server asks, a known demo admin gets the code field at once.
  const showTotp = factor ? factor.methods.includes('totp') : isDemoAdmin;
  const offersPasskey = factor?.methods.includes('passkey') ?? false;

  const [codeRetries, setCodeRetries] = useState(0);
  const retryCode = () => {
    setTotp('');
    setCodeRetries((n) => n + 1);
  };
  useEffect(() => {
    if (codeRetries) form.current?.querySelector<HTMLElement>('input[name="totp"]')?.focus();
  }, [codeRetries]);

  // Set at once (state is not): six digits typed and Enter pressed together send one request.
  const sending = useRef(false);
  // Six digits typed while an answer is awaited (the password sent alone, the code field shown
  // meanwhile): sent as soon as that answer asks for a second factor, never dropped.
  const queuedCode = useRef<string | undefined>(undefined);
  const attempt = async (body: SignInBody): Promise<void> => {
    if (sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(undefined);
    let then: SignInBody | undefined;
    try {
      onSignedIn(await signIn(body));
    } catch (caught) {
      // Only a failure opens the form again: once through, an Enter after the sixth digit sends nothing.
      sending.current = false;
      const queued = queuedCode.current;
      if (
        queued &&
        !body.totp &&
        isApiError(caught) &&
        caught.problem?.code === 'second_factor_required'
      ) {
        // Asked for the code the person has already typed: sent now, as if typed after.
        setFactor(caught.problem.secondFactor);
        then = { ...body, totp: queued };
      } else {
        // A code that did not do (the BFF's 401 does not say which part was wrong): the field is
        // emptied and focused for the next one, which six digits send again.
        if (body.totp && isApiError(caught) && caught.status === 401) retryCode();
        onFailure(caught);
      }
    } finally {
      queuedCode.current = undefined;
      if (!then) setBusy(false);
    }
    if (then) await attempt(then);
  };

  const onFailure = (caught: unknown) => {
    if (!isApiError(caught)) {
      setError(isPasskeyError(caught) ? passkeyFallback(caught.message) : 'Sign-in failed.');
      return;
    }
    const refused = signInFieldErrorsFromServer(caught);
    if (refused) {
      refuse(refused);
      return;
    }
    if (caught.status === 400) {
      setError('Check what you entered and try again.');
      return;
    }
    if (caught.problem?.code === 'second_factor_required') {
      // The second step: nothing went wrong, so no error; focus goes to the code field.
      setFactor(caught.problem.secondFactor);
      setFocusKey((k) => k + 1);
    } else if (caught.code === 'invalid_totp') {
      // A real error: said in red (the field is emptied and focused for the next code).
      setError(caught.message || 'That code is not right. Try the current one.');
    } else if (caught.code === 'invalid_passkey') {
      setError(caught.message || 'That passkey was not accepted. Try again.');
    } else if (caught.status === 429) {
      setError(`Too many sign-in attempts — try again in ${caught.retryAfterSeconds ?? 60} s.`);
    } else {
      setError(caught.message);
    }
  };

  const passkeyFallback = (message: string) =>
    showTotp ? `${message} You can also enter the code from your authenticator app.` : message;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing = signInFieldErrors({ email, password, totp: showTotp ? totp : undefined });
    if (Object.keys(missing).length > 0) {
      setError(undefined);
      refuse(missing);
      return;
    }
    setFieldErrors({});
    void attempt({ email, password, ...(showTotp && totp ? { totp } : {}) });
  };

  const changeTotp = (code: string) => {
    setTotp(code);
    // A code queued while an answer was awaited is the one in the field, or none.
    if (queuedCode.current !== code) queuedCode.current = undefined;
    edited('totp');
  };

  /** Six digits typed: signed in without a press, once the rest of the form is there. */
  const completeTotp = (code: string) => {
    if (!email.trim() || !password) return;
    if (Object.keys(signInFieldErrors({ email, password, totp: code })).length > 0) return;
    if (sending.current) {
      queuedCode.current = code;
      return;
    }
    setFieldErrors({});
    void attempt({ email, password, totp: code });
  };

  // The button pressed is gone with the step: focus goes to the email, ready to change it.
  const [backToFirst, setBackToFirst] = useState(0);
  useEffect(() => {
    if (backToFirst) form.current?.querySelector<HTMLElement>('input[name="email"]')?.focus();
  }, [backToFirst]);
  /** Back to the first step, for another account (the factor asked for was this one's). */
  const otherAccount = () => {
    setFactor(undefined);
    setTotp('');
    setPassword('');
    setError(undefined);
    setBackToFirst((n) => n + 1);
  };

  /** Typing in a field clears what was said about it. */
  const edited = (field: SignInField) =>
    setFieldErrors((errors) => {
      if (errors[field] === undefined) return errors;
      const { [field]: _, ...rest } = errors;
      return rest;
    });

  /** Signs the challenge the 401 carried, once; a used challenge is asked for again. */
  const signInWithPasskey = async () => {
    if (sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(undefined);
    try {
      let options = factor?.passkeyOptions;
      if (!options) {
        const fresh = await signIn({ email, password }).then(
          (session) => ({ session }),
          (caught: unknown) => ({ caught }),
        );
        if ('session' in fresh) return onSignedIn(fresh.session);
        const offered = apiProblem(fresh.caught, 'second_factor_required')?.secondFactor;
        if (!offered?.passkeyOptions) throw fresh.caught;
        setFactor(offered);
        options = offered.passkeyOptions;
      }
      setFactor((f) => (f ? { ...f, passkeyOptions: undefined } : f));
      const passkey = await signWithPasskey(options);
      onSignedIn(await signIn({ email, password, passkey }));
    } catch (caught) {
      // Only a failure opens the form again: once through, an Enter after the sixth digit sends nothing.
      sending.current = false;
      onFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  const changeEmail = (value: string) => {
    setEmail(value);
    edited('email');
    // The factors asked for were this person's.
    setFactor(undefined);
  };

  return (
    <>
      <form className="stack" onSubmit={submit} noValidate ref={form}>
        {factor ? (
          // The second step, on its own: who is signing in, and a way back to change it.
          <p className="sign-in-as">
            <span>
              Signing in as <strong className="long-text">{email}</strong>
            </span>
            <button type="button" className="link-button" onClick={otherAccount}>
              Use another account
            </button>
          </p>
        ) : (
          <>
            <Field label="Email" error={fieldErrors.email}>
              {(control) => (
                <input
                  {...control}
                  type="email"
                  name="email"
                  autoComplete="username"
                  required
                  value={email}
                  onChange={(e) => changeEmail(e.target.value)}
                />
              )}
            </Field>
            <Field label="Password" error={fieldErrors.password}>
              {(control) => (
                <input
                  {...control}
                  type="password"
                  name="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => {
                    setPassword(e.target.value);
                    edited('password');
                  }}
                />
              )}
            </Field>
          </>
        )}
        {factor ? (
          <SecondFactorChoices
            methods={factor.methods}
            totp={totp}
            onTotpChange={changeTotp}
            onTotpComplete={completeTotp}
            totpError={fieldErrors.totp}
            onPasskey={() => void signInWithPasskey()}
            busy={busy}
            focusKey={focusKey}
            instruction
          />
        ) : showTotp ? (
          <TotpField
            value={totp}
            onChange={changeTotp}
            onComplete={completeTotp}
            hint="6 digits from your authenticator app (admins). Six digits sign you in."
            error={fieldErrors.totp}
          />
        ) : null}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        {!factor || showTotp ? (
          <button type="submit" className={offersPasskey ? undefined : 'primary'} disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        ) : null}
      </form>
      {demoAccounts.length > 0 ? (
        <DemoAccounts
          accounts={demoAccounts}
          onUse={(a) => {
            changeEmail(a.email);
            setPassword(a.password);
          }}
          onUseCode={(a, code) => {
            // The account already in the form (at its second step, say) keeps its step.
            if (email.trim().toLowerCase() !== a.email) {
              changeEmail(a.email);
              setPassword(a.password);
            } else if (!password) setPassword(a.password);
            changeTotp(code);
          }}
        />
      ) : null}
    </>
  );
}

function DemoAccounts({
  accounts,
  onUse,
  onUseCode,
}: {
  accounts: DemoAccount[];
  onUse: (account: DemoAccount) => void;
  onUseCode: (account: DemoAccount, code: string) => void;
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
              {a.role === 'admin' && a.totpSecret ? (
                <Suspense fallback={null}>
                  <DemoAdminCode onUse={(code) => onUseCode(a, code)} />
                </Suspense>
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
