import type {
  PasskeyAssertion,
  PasskeyAttestation,
  PasskeyOptions,
} from '@card-console/shared/api/security';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';

/** A passkey ceremony that did not finish, with what to tell the person. */
export class PasskeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasskeyError';
  }
}

export function isPasskeyError(error: unknown): error is PasskeyError {
  return error instanceof PasskeyError;
}

// The server's options are WebAuthn's own JSON, passed through as it made them (the browser
// checks them); the answers are the JSON shapes the shared schemas describe.

/** Signs the server's challenge with one of the person's passkeys (WebAuthn `get`). */
export async function signWithPasskey(options: PasskeyOptions): Promise<PasskeyAssertion> {
  const { startAuthentication } = await load();
  try {
    const assertion = await startAuthentication({
      optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
    });
    return assertion as PasskeyAssertion;
  } catch (cause) {
    throw toPasskeyError(cause);
  }
}

/** Makes a new passkey on this device or a security key (WebAuthn `create`). */
export async function createPasskey(options: PasskeyOptions): Promise<PasskeyAttestation> {
  const { startRegistration } = await load();
  try {
    const attestation = await startRegistration({
      optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
    });
    return attestation as PasskeyAttestation;
  } catch (cause) {
    throw toPasskeyError(cause);
  }
}

/**
 * The browser half of WebAuthn (@simplewebauthn/browser), loaded with `import()` only when a
 * person presses a passkey button: none of it is in the first download (docs/decisions/
 * 0091-first-download-budget.md), and the browser keeps the chunk once fetched.
 */
async function load() {
  try {
    return await import('@simplewebauthn/browser');
  } catch {
    throw new PasskeyError(
      'The passkey support of this page could not be loaded. Check your connection and try again.',
    );
  }
}

function toPasskeyError(cause: unknown): PasskeyError {
  const name = cause instanceof Error ? cause.name : '';
  const code = (cause as { code?: unknown } | null)?.code;
  if (name === 'NotAllowedError' || name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED') {
    return new PasskeyError('The passkey was not used: the request was cancelled or timed out.');
  }
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError') {
    return new PasskeyError('This device or security key already holds one of your passkeys.');
  }
  if (cause instanceof Error && /not supported/i.test(cause.message)) {
    return new PasskeyError('This browser cannot use passkeys.');
  }
  return new PasskeyError('The passkey did not work on this device.');
}
