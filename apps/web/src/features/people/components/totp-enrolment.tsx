import { TotpField } from '../../../components/totp-field';
import { useQrCode } from '../../../components/use-qr-code';
import { groupSecret } from '../people-labels';

/**
 * An admin's authenticator, set up while signing up: the secret (made by the server for this
 * invitation; this page never makes or sends one) as a QR code to scan and as text to type, then
 * a current code proving the app holds it. Until the secret arrives, both wait in place.
 */
export function TotpEnrolment({
  secret,
  uri,
  code,
  onCode,
  error,
}: {
  secret: string | undefined;
  /** The `otpauth://` address the QR code holds. */
  uri: string | undefined;
  code: string;
  onCode: (code: string) => void;
  error: string | undefined;
}) {
  const qr = useQrCode(uri);

  return (
    <fieldset className="totp-enrolment">
      <legend>Your authenticator app</legend>
      <p>
        Admins confirm it is them with a second factor. Scan this code with your authenticator app
        (Google Authenticator, 1Password, Authy…), or type the key below into it.
      </p>
      {qr ? (
        <img
          className="totp-qr"
          src={qr}
          alt="QR code for your authenticator app"
          width={180}
          height={180}
        />
      ) : (
        <div className="totp-qr totp-qr-pending" aria-hidden="true" />
      )}
      {secret ? (
        <p className="totp-secret-line">
          Key: <code className="totp-secret">{groupSecret(secret)}</code>
        </p>
      ) : (
        <p className="totp-secret-line muted" role="status">
          Making your key…
        </p>
      )}
      <TotpField
        value={code}
        onChange={onCode}
        hint="The 6 digits your authenticator app now shows for Card Console."
        error={error}
      />
    </fieldset>
  );
}
