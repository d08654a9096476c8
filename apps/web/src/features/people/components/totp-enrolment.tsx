import { useEffect, useState } from 'react';
import { TotpField } from '../../../components/totp-field';
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
  const [qr, setQr] = useState<string>();
  useEffect(() => {
    if (!uri) return;
    let live = true;
    // The QR code's library loads only here, for the admins who need it.
    import('qrcode')
      .then((qrcode) => qrcode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }))
      .then((svg) => {
        if (live) setQr(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
      })
      .catch(() => {
        if (live) setQr(undefined);
      });
    return () => {
      live = false;
    };
  }, [uri]);

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
