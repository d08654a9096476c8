// Test support: a WebAuthn authenticator in software (ES256, "none" attestation), so BFF tests
// can enrol and use passkeys over HTTP as a browser would, and forge what a browser never would
// (another origin, another RP id, a replayed signature). Real Chromium's virtual authenticator
// is used by the e2e tests.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type {
  PasskeyAssertion,
  PasskeyAttestation,
  PasskeyOptions,
} from '@card-console/shared/api/security';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

const b64 = (bytes: Uint8Array) => isoBase64URL.fromBuffer(new Uint8Array(bytes));
const sha256 = (data: Uint8Array | string) =>
  new Uint8Array(createHash('sha256').update(data).digest());

/** Flags: user present (0x01), user verified (0x04), attested credential data (0x40). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftwarePasskey {
  id: string;
  privateKey: KeyObject;
  /** COSE public key, as the server stores it (base64url). */
  publicKey: string;
  rpId: string;
  counter: number;
}

export interface AuthenticatorTraits {
  /**
   * Whether it verifies the person (PIN, biometrics) or only their presence, as a security key
   * without a PIN does. Verifies by default.
   */
  verifiesUser?: boolean;
}

export class SoftwareAuthenticator {
  readonly passkeys: SoftwarePasskey[] = [];
  private readonly flags: number;

  constructor(traits: AuthenticatorTraits = {}) {
    this.flags = traits.verifiesUser === false ? UP : UP | UV;
  }

  /** Answers `navigator.credentials.create` with these options, as `origin` would. */
  create(options: PasskeyOptions, origin: string): PasskeyAttestation {
    const rpId = (options.rp as { id?: string } | undefined)?.id ?? new URL(origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, isoBase64URL.toBuffer(jwk.x as string)],
        [-3, isoBase64URL.toBuffer(jwk.y as string)],
      ]),
    );
    const credentialId = new Uint8Array(randomBytes(32));
    const authData = concat(
      sha256(rpId),
      new Uint8Array([this.flags | AT]),
      counterBytes(0),
      new Uint8Array(16), // AAGUID
      new Uint8Array([credentialId.length >> 8, credentialId.length & 0xff]),
      credentialId,
      cose,
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = clientData('webauthn.create', options.challenge, origin);
    const id = b64(credentialId);
    this.passkeys.push({ id, privateKey, publicKey: b64(cose), rpId, counter: 0 });
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64(clientDataJSON),
        attestationObject: b64(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * Answers `navigator.credentials.get`: signs the challenge with the first passkey the
   * options allow (or `passkeyId`), as `origin` would, its counter moved on.
   */
  get(options: PasskeyOptions, origin: string, passkeyId?: string): PasskeyAssertion {
    const allowed = (options.allowCredentials as { id: string }[] | undefined)?.map((c) => c.id);
    const passkey = this.passkeys.find((p) =>
      passkeyId ? p.id === passkeyId : !allowed || allowed.includes(p.id),
    );
    if (!passkey) throw new Error('no passkey of this authenticator is allowed by the options');
    passkey.counter += 1;
    const rpId = (options.rpId as string | undefined) ?? passkey.rpId;
    const authData = concat(
      sha256(rpId),
      new Uint8Array([this.flags]),
      counterBytes(passkey.counter),
    );
    const clientDataJSON = clientData('webauthn.get', options.challenge, origin);
    const signature = sign('sha256', concat(authData, sha256(clientDataJSON)), passkey.privateKey);
    return {
      id: passkey.id,
      rawId: passkey.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(new Uint8Array(signature)),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

function clientData(type: string, challenge: string, origin: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

function counterBytes(counter: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, counter);
  return bytes;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
