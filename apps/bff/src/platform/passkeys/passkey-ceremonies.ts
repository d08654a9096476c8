// The WebAuthn ceremonies with @simplewebauthn/server: options out, a response back, checked
// against a challenge that is good once (OneTimeStore.take), on this origin and RP id only.
import { createHash } from 'node:crypto';
import type {
  PasskeyAssertion,
  PasskeyAttestation,
  PasskeyOptions,
} from '@card-console/shared/api/security';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { COSEALG, isoBase64URL } from '@simplewebauthn/server/helpers';
import { withCardNumbersMasked } from '../security/card-number-ids';
import type { OneTimeStore } from '../security/one-time-store';
import type { FactorStore, StoredPasskey } from './factor-store';

/** A ceremony's challenge is good for this long (WebAuthn's own timeout is 60 s). */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * The key types a new passkey may have, in the order offered: Ed25519, P-256, RSA. Named here,
 * not left to @simplewebauthn/server, whose default depends on the runtime: on Node 24 it puts
 * ML-DSA-44 first (the runtime can verify it), Chromium then makes a post-quantum passkey whose
 * 2,420-byte signatures a replica on Node 20 or 22 could not verify (nor the assertion schema
 * hold). Every replica of a deployment, whatever its Node, checks the same passkeys.
 */
export const PASSKEY_ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];

/**
 * What a challenge was issued for. A challenge made for one purpose and owner (a person at
 * sign-in, a session at step-up or enrolment) is refused for any other.
 */
export type CeremonyPurpose = 'sign-in' | 'step-up' | 'enrol';

export interface PasskeyCeremoniesOptions {
  /** PUBLIC_ORIGIN: the only origin a passkey response may come from. */
  origin: string;
  factors: FactorStore;
  challenges: OneTimeStore;
  now(): number;
}

/**
 * A passkey response that did not verify; the message is for the log and the trail, never the
 * person. It may quote what the browser sent (an origin, a challenge), so any digit run in it
 * that reads as a card number is masked: the trail refuses one, which would lose the record of
 * the refusal.
 */
export class PasskeyRefused extends Error {
  override name = 'PasskeyRefused';
  constructor(message: string) {
    super(withCardNumbersMasked(message));
  }
}

export class PasskeyCeremonies {
  /** The relying party id: PUBLIC_ORIGIN's host name (a passkey is bound to it). */
  readonly rpId: string;
  private readonly origin: string;

  constructor(private readonly options: PasskeyCeremoniesOptions) {
    this.origin = options.origin;
    this.rpId = new URL(options.origin).hostname;
  }

  private key(purpose: CeremonyPurpose, owner: string, challenge: string): string {
    return `webauthn:${purpose}:${owner}:${challenge}`;
  }

  /** Takes the challenge (once) if it was issued for this purpose and owner. */
  private expect(purpose: CeremonyPurpose, owner: string) {
    return async (challenge: string) =>
      (await this.options.challenges.take(this.key(purpose, owner, challenge))) !== undefined;
  }

  /** Options for `navigator.credentials.create`: a new passkey for `email`, none it already has. */
  async registrationOptions(email: string, owner: string): Promise<PasskeyOptions> {
    const { passkeys } = await this.options.factors.get(email);
    const options = await generateRegistrationOptions({
      rpName: 'Card Console',
      rpID: this.rpId,
      userName: email,
      // Stable per person, and no email in it: the authenticator keeps the handle.
      userID: createHash('sha256').update(`card-console:${email}`).digest().subarray(0, 32),
      attestationType: 'none',
      excludeCredentials: passkeys.map(toDescriptor),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
    await this.options.challenges.put(
      this.key('enrol', owner, options.challenge),
      '1',
      CHALLENGE_TTL_MS,
    );
    return options as unknown as PasskeyOptions;
  }

  /** Checks a new passkey made with `registrationOptions` for the same owner. */
  async verifyRegistration(
    owner: string,
    response: PasskeyAttestation,
    name: string,
  ): Promise<StoredPasskey> {
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: response as Parameters<typeof verifyRegistrationResponse>[0]['response'],
        expectedChallenge: this.expect('enrol', owner),
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: true,
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
      });
    } catch (error) {
      throw new PasskeyRefused((error as Error).message);
    }
    if (!verified.verified) throw new PasskeyRefused('registration not verified');
    const { credential } = verified.registrationInfo;
    return {
      id: credential.id,
      publicKey: isoBase64URL.fromBuffer(credential.publicKey),
      counter: credential.counter,
      ...(credential.transports?.length ? { transports: [...credential.transports] } : {}),
      name,
      createdAt: this.options.now(),
    };
  }

  /**
   * Options for `navigator.credentials.get` over `email`'s passkeys; undefined when they have
   * none. `owner` binds the challenge: the person at sign-in, the session at step-up.
   */
  async authenticationOptions(
    email: string,
    purpose: Exclude<CeremonyPurpose, 'enrol'>,
    owner: string,
  ): Promise<PasskeyOptions | undefined> {
    const { passkeys } = await this.options.factors.get(email);
    if (passkeys.length === 0) return undefined;
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      allowCredentials: passkeys.map(toDescriptor),
      userVerification: 'required',
    });
    await this.options.challenges.put(
      this.key(purpose, owner, options.challenge),
      '1',
      CHALLENGE_TTL_MS,
    );
    return options as unknown as PasskeyOptions;
  }

  /**
   * Checks an assertion: one of `email`'s own passkeys (another person's is refused), signed
   * over a challenge issued for this purpose and owner (used up by this check), from
   * PUBLIC_ORIGIN, with the person verified. Records the use. Returns the passkey used.
   */
  async verifyAuthentication(
    email: string,
    purpose: Exclude<CeremonyPurpose, 'enrol'>,
    owner: string,
    assertion: PasskeyAssertion,
  ): Promise<StoredPasskey> {
    const { passkeys } = await this.options.factors.get(email);
    const passkey = passkeys.find((p) => p.id === assertion.id);
    if (!passkey) throw new PasskeyRefused('not one of this person’s passkeys');
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response: assertion as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
        expectedChallenge: this.expect(purpose, owner),
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: {
          id: passkey.id,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          ...(passkey.transports ? { transports: passkey.transports } : {}),
        },
        requireUserVerification: true,
      });
    } catch (error) {
      throw new PasskeyRefused((error as Error).message);
    }
    if (!verified.verified) throw new PasskeyRefused('assertion not verified');
    const at = this.options.now();
    const still = await this.options.factors.recordUse(
      email,
      passkey.id,
      verified.authenticationInfo.newCounter,
      at,
    );
    if (!still) throw new PasskeyRefused('the passkey was removed while it was being checked');
    return { ...passkey, counter: verified.authenticationInfo.newCounter, lastUsedAt: at };
  }
}

function toDescriptor(passkey: StoredPasskey) {
  return {
    id: passkey.id,
    ...(passkey.transports ? { transports: passkey.transports } : {}),
  };
}
