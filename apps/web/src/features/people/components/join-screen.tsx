import {
  type InvitationView,
  invitationLookupSchema,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
} from '@card-console/shared/api/people';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';
import { ErrorState } from '../../../components/error-state';
import { Field } from '../../../components/field';
import { useDocumentTitle } from '../../../components/use-document-title';
import { isApiError } from '../../../lib/api-error';
import { acceptInvitation, invitationAuthenticator, lookupInvitation } from '../api/invitations';
import { forgetJoinToken, joinLinkNumber } from '../join-token';
import { roleLabels } from '../people-labels';
import { TotpEnrolment } from './totp-enrolment';
import '../people.css';

/**
 * Signing up from an invitation link, with no session: what the link is for, then a password
 * (and for an admin an authenticator app); then the person signs in as usual. A link that is
 * missing, wrong, expired, used or withdrawn gets a page saying so and what to do.
 */
export function JoinScreen({ token }: { token: string | undefined }) {
  if (!token) {
    return (
      <Gone title="Open the link from your invitation">
        This page needs the whole link an admin sent you. Open it again from that message; if it was
        cut short, copy all of it into the address bar.
      </Gone>
    );
  }
  if (!invitationLookupSchema.safeParse({ token }).success) {
    return <NotValid />;
  }
  return <Lookup token={token} />;
}

function Lookup({ token }: { token: string }) {
  const lookup = useQuery({
    queryKey: ['invitation-lookup', joinLinkNumber()] as const,
    queryFn: ({ signal }) => lookupInvitation(token, signal),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });
  const [gone, setGone] = useState<unknown>();
  const [joined, setJoined] = useState<string>();

  if (joined) return <Joined email={joined} />;
  const failure = gone ?? lookup.error;
  if (failure) {
    const page = deadLink(failure);
    if (page) return page;
    return (
      <Panel title="Join Card Console">
        <ErrorState error={failure} onRetry={() => void lookup.refetch()} />
      </Panel>
    );
  }
  if (!lookup.data) {
    return (
      <Panel title="Join Card Console">
        <p className="muted" role="status">
          Checking your invitation…
        </p>
      </Panel>
    );
  }
  return (
    <JoinForm
      token={token}
      invitation={lookup.data}
      onJoined={(email) => {
        forgetJoinToken();
        setJoined(email);
      }}
      onGone={setGone}
    />
  );
}

type FieldName = 'password' | 'confirm' | 'code';

function JoinForm({
  token,
  invitation,
  onJoined,
  onGone,
}: {
  token: string;
  invitation: InvitationView;
  onJoined: (email: string) => void;
  onGone: (error: unknown) => void;
}) {
  useDocumentTitle('Join Card Console');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const needsApp = invitation.needsSecondFactor;
  // Made by the server for this invitation, once per page: asked again, a new one replaces it.
  const authenticator = useQuery({
    queryKey: ['invitation-authenticator', joinLinkNumber()] as const,
    queryFn: ({ signal }) => invitationAuthenticator(token, signal),
    enabled: needsApp,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });
  const dead = authenticator.error ? deadLink(authenticator.error) : undefined;
  if (dead) return dead;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const next: Partial<Record<FieldName, string>> = {};
    if (password.length < MIN_PASSWORD_LENGTH) {
      next.password = `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
    } else if (password.length > MAX_PASSWORD_LENGTH) {
      next.password = `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
    }
    if (confirm !== password) next.confirm = 'The two passwords differ: type the same one twice.';
    if (needsApp && !/^\d{6}$/.test(code)) {
      next.code = 'Enter the 6-digit code your authenticator app shows.';
    }
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    setBusy(true);
    try {
      const answer = await acceptInvitation({
        token,
        password,
        ...(needsApp ? { totpCode: code } : {}),
      });
      onJoined(answer.email);
    } catch (caught) {
      if (isApiError(caught) && caught.code === 'invalid_totp') {
        setErrors({ code: 'That code is not right. Enter the one the app shows now.' });
        setCode('');
      } else if (isApiError(caught) && (caught.status === 404 || caught.status === 410)) {
        onGone(caught);
      } else if (isApiError(caught) && caught.status === 400 && caught.code !== 'http_error') {
        setFailure(caught.message);
      } else if (isApiError(caught) && caught.status === 429) {
        setFailure(`Too many tries — wait ${caught.retryAfterSeconds ?? 60} s and try again.`);
      } else {
        setFailure('Signing up did not work just now. Try again in a moment.');
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Panel
      title={`Join Card Console as ${invitation.email} (${roleLabels[invitation.role].toLowerCase()})`}
    >
      <p className="muted">
        Choose your password{needsApp ? ' and set up your authenticator app' : ''}. Then sign in as
        usual.
      </p>
      <form className="stack join-form" onSubmit={submit} noValidate>
        {/* For the browser's password manager: which account the new password is for. */}
        <input
          type="email"
          name="username"
          autoComplete="username"
          value={invitation.email}
          readOnly
          hidden
        />
        <Field
          label="Password"
          hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
          error={errors.password}
        >
          {(control) => (
            <input
              {...control}
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password again" error={errors.confirm}>
          {(control) => (
            <input
              {...control}
              type="password"
              autoComplete="new-password"
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
            />
          )}
        </Field>
        {needsApp ? (
          authenticator.error ? (
            <ErrorState error={authenticator.error} onRetry={() => void authenticator.refetch()} />
          ) : (
            <TotpEnrolment
              secret={authenticator.data?.secret}
              uri={authenticator.data?.otpauthUri}
              code={code}
              onCode={setCode}
              error={errors.code}
            />
          )
        ) : null}
        {failure ? (
          <p className="form-error" role="alert">
            {failure}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Joining…' : 'Join'}
        </button>
      </form>
    </Panel>
  );
}

/** The page for a link that cannot be used, or undefined when the failure is something else. */
function deadLink(error: unknown): ReactNode | undefined {
  if (!isApiError(error)) return undefined;
  if (error.status === 404 || (error.status === 400 && error.code !== 'http_error')) {
    return <NotValid />;
  }
  if (error.status !== 410) return undefined;
  const why: Record<string, string> = {
    invitation_expired: 'It has expired.',
    invitation_used: 'It has been used already: if that was you, sign in.',
    invitation_revoked: 'The admin who sent it withdrew it.',
  };
  return (
    <Gone title="This invitation link no longer works">
      {why[error.code] ?? 'It has expired, been used or been withdrawn.'} Ask an admin for a new
      invitation if you still need one.
    </Gone>
  );
}

function NotValid() {
  return (
    <Gone title="This invitation link is not valid">
      Check that you opened the whole link from your invitation. If it still does not work, ask the
      admin who invited you for a new one.
    </Gone>
  );
}

function Gone({ title, children }: { title: string; children: ReactNode }) {
  useDocumentTitle(title);
  return (
    <Panel title={title}>
      <p>{children}</p>
      <p>
        <Link to="/sign-in" search={{}}>
          Go to sign in
        </Link>
      </p>
    </Panel>
  );
}

function Joined({ email }: { email: string }) {
  useDocumentTitle("You're in");
  return (
    <Panel title="You're in">
      <p role="status">
        Your account is ready. Sign in as <strong>{email}</strong> with the password you chose.
      </p>
      <p>
        <Link to="/sign-in" search={{}} className="button primary">
          Sign in
        </Link>
      </p>
    </Panel>
  );
}

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="sign-in" id="main">
      <div className="sign-in-panel join-panel">
        <p className="join-brand">Card Console</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
