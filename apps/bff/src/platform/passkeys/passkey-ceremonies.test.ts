// The ceremonies on their own, with a software authenticator (real ES256 signatures) and a real
// file factor store: what the options ask of an authenticator, what a verified passkey keeps,
// and the refusals only a forged or weaker authenticator produces. security-passkeys.test.ts covers the
// same ceremonies over HTTP.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PasskeyAttestation } from '@card-console/shared/api/security';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { SoftwareAuthenticator } from '../../test/software-authenticator';
import type { OneTimeStore } from '../security/one-time-store';
import type { FactorStore } from './factor-store';
import { FileFactorStore } from './file-factor-store';
import { PasskeyCeremonies, PasskeyRefused } from './passkey-ceremonies';

const origin = 'https://console.example.com';
const ada = 'ada@example.com';
const grace = 'grace@example.com';

/** Challenges as a store keeps them: each taken once, gone after its time to live. */
class Challenges implements OneTimeStore {
  readonly kept = new Map<string, { value: string; until: number }>();

  constructor(private readonly clock: ManualClock) {}
  async put(key: string, value: string, ttlMs: number) {
    this.kept.set(key, { value, until: this.clock.now() + ttlMs });
  }
  async take(key: string) {
    const entry = this.kept.get(key);
    this.kept.delete(key);
    return entry && entry.until > this.clock.now() ? entry.value : undefined;
  }
}

let dir: string;
let clock: ManualClock;
let factors: FactorStore;
let challenges: Challenges;
let ceremonies: PasskeyCeremonies;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ceremonies-test-'));
  clock = new ManualClock(Date.UTC(2030, 0, 1));
  factors = await FileFactorStore.open(dir);
  challenges = new Challenges(clock);
  ceremonies = new PasskeyCeremonies({ origin, factors, challenges, now: () => clock.now() });
});
afterEach(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

/** Enrols a new passkey of `authenticator` for `email`, as the enrolment route does. */
async function enrol(email: string, authenticator: SoftwareAuthenticator, name = 'Laptop') {
  const options = await ceremonies.registrationOptions(email, `session-${email}`);
  const passkey = await ceremonies.verifyRegistration(
    `session-${email}`,
    authenticator.create(options, origin),
    name,
  );
  expect(await factors.addPasskey(email, passkey)).toBe('added');
  return passkey;
}

async function refusal(promise: Promise<unknown>): Promise<PasskeyRefused> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PasskeyRefused);
  return error as PasskeyRefused;
}

/** The attestation re-made as "packed" self-attestation, signed by a key that is not the passkey's. */
function withForeignAttestationSignature(attestation: PasskeyAttestation): PasskeyAttestation {
  const object = isoCBOR.decodeFirst<Map<string, unknown>>(
    isoBase64URL.toBuffer(attestation.response.attestationObject),
  );
  const authData = object.get('authData') as Uint8Array;
  const clientDataHash = createHash('sha256')
    .update(isoBase64URL.toBuffer(attestation.response.clientDataJSON))
    .digest();
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const sig = sign('sha256', Buffer.concat([authData, clientDataHash]), privateKey);
  const forged = new Map<string, unknown>([
    ['fmt', 'packed'],
    [
      'attStmt',
      new Map<string, unknown>([
        ['alg', -7],
        ['sig', new Uint8Array(sig)],
      ]),
    ],
    ['authData', authData],
  ]);
  return {
    ...attestation,
    response: {
      ...attestation.response,
      attestationObject: isoBase64URL.fromBuffer(isoCBOR.encode(forged as never)),
    },
  };
}

describe('registration options', () => {
  it('ask this RP for a discoverable passkey with the person verified, and no attestation', async () => {
    const options = await ceremonies.registrationOptions(ada, 'session-1');
    expect(options).toMatchObject({
      rp: { name: 'Card Console', id: 'console.example.com' },
      user: { name: ada },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
  });

  it('offer Ed25519, P-256 and RSA keys only, on every Node (Node 24 would add ML-DSA-44 first)', async () => {
    const options = await ceremonies.registrationOptions(ada, 'session-1');
    expect(options.pubKeyCredParams).toEqual([
      { alg: -8, type: 'public-key' },
      { alg: -7, type: 'public-key' },
      { alg: -257, type: 'public-key' },
    ]);
  });

  it('give each person one stable user handle, with no email in it', async () => {
    const handle = async (email: string) =>
      ((await ceremonies.registrationOptions(email, 'session-1')).user as { id: string }).id;
    const adas = await handle(ada);
    expect(await handle(ada)).toBe(adas);
    expect(await handle(grace)).not.toBe(adas);
    expect(Buffer.from(isoBase64URL.toBuffer(adas)).toString('latin1')).not.toContain('ada');
  });

  it('list the passkeys the person already has, with their transports, so none is made twice', async () => {
    const first = await enrol(ada, new SoftwareAuthenticator());
    const options = await ceremonies.registrationOptions(ada, 'session-2');
    expect(options.excludeCredentials).toEqual([
      { id: first.id, type: 'public-key', transports: ['internal'] },
    ]);
  });

  it('are answered within five minutes, not later', async () => {
    const answer = async (after: number) => {
      const options = await ceremonies.registrationOptions(ada, 'session-1');
      const attestation = new SoftwareAuthenticator().create(options, origin);
      clock.advance(after);
      return ceremonies.verifyRegistration('session-1', attestation, 'Key');
    };
    await expect(answer(299_000)).resolves.toMatchObject({ name: 'Key' });
    await refusal(answer(300_000));
  });
});

describe('verifying a new passkey', () => {
  it('keeps its id, public key, counter, transports, name and the time it was made', async () => {
    const authenticator = new SoftwareAuthenticator();
    const options = await ceremonies.registrationOptions(ada, 'session-1');
    const passkey = await ceremonies.verifyRegistration(
      'session-1',
      authenticator.create(options, origin),
      'Laptop',
    );
    expect(passkey).toEqual({
      id: authenticator.passkeys[0]?.id,
      publicKey: authenticator.passkeys[0]?.publicKey,
      counter: 0,
      transports: ['internal'],
      name: 'Laptop',
      createdAt: clock.now(),
    });
  });

  it('from an authenticator that names no transports, keeps none', async () => {
    const options = await ceremonies.registrationOptions(ada, 'session-1');
    const attestation = new SoftwareAuthenticator().create(options, origin);
    delete attestation.response.transports;
    const passkey = await ceremonies.verifyRegistration('session-1', attestation, 'Key');
    expect(passkey).not.toHaveProperty('transports');
  });

  it('refuses a passkey from an authenticator that proves only presence, not the person', async () => {
    const options = await ceremonies.registrationOptions(ada, 'session-1');
    const attestation = new SoftwareAuthenticator({ verifiesUser: false }).create(options, origin);
    const error = await refusal(ceremonies.verifyRegistration('session-1', attestation, 'Key'));
    expect(error.message).toMatch(/user could not be verified/);
  });

  it('refuses an attestation whose signature is not the passkey’s', async () => {
    const options = await ceremonies.registrationOptions(ada, 'session-1');
    const attestation = withForeignAttestationSignature(
      new SoftwareAuthenticator().create(options, origin),
    );
    const error = await refusal(ceremonies.verifyRegistration('session-1', attestation, 'Key'));
    expect(error).toMatchObject({ name: 'PasskeyRefused', message: 'registration not verified' });
  });
});

describe('authentication options', () => {
  it('are none for a person without passkeys, and no challenge is kept', async () => {
    expect(await ceremonies.authenticationOptions(ada, 'sign-in', ada)).toBeUndefined();
    expect(challenges.kept.size).toBe(0);
  });

  it('ask for the person verified, with any of their passkeys and its transports', async () => {
    const passkey = await enrol(ada, new SoftwareAuthenticator());
    const options = await ceremonies.authenticationOptions(ada, 'step-up', 'session-9');
    expect(options).toMatchObject({
      rpId: 'console.example.com',
      userVerification: 'required',
      allowCredentials: [{ id: passkey.id, type: 'public-key', transports: ['internal'] }],
    });
  });
});

describe('verifying a passkey assertion', () => {
  it('accepts the second of a person’s passkeys and records its use', async () => {
    await enrol(ada, new SoftwareAuthenticator(), 'Laptop');
    const phone = new SoftwareAuthenticator();
    const second = await enrol(ada, phone, 'Phone');
    const options = await ceremonies.authenticationOptions(ada, 'sign-in', ada);
    clock.advance(60_000);
    const used = await ceremonies.verifyAuthentication(
      ada,
      'sign-in',
      ada,
      phone.get(options ?? { challenge: '' }, origin),
    );
    expect(used).toEqual({ ...second, counter: 1, lastUsedAt: clock.now() });
    const stored = (await factors.get(ada)).passkeys.find((p) => p.id === second.id);
    expect(stored).toMatchObject({ counter: 1, lastUsedAt: clock.now() });
  });

  it('refuses another person’s passkey as not theirs, and records no use', async () => {
    const graces = new SoftwareAuthenticator();
    await enrol(grace, graces);
    await enrol(ada, new SoftwareAuthenticator());
    const options = await ceremonies.authenticationOptions(ada, 'sign-in', ada);
    const assertion = graces.get({ ...options, allowCredentials: undefined } as never, origin);
    const error = await refusal(ceremonies.verifyAuthentication(ada, 'sign-in', ada, assertion));
    expect(error).toMatchObject({
      name: 'PasskeyRefused',
      message: 'not one of this person’s passkeys',
    });
    expect((await factors.get(grace)).passkeys[0]?.counter).toBe(0);
  });

  it('refuses an assertion signed by another key under the passkey’s id, and records no use', async () => {
    const laptop = new SoftwareAuthenticator();
    const passkey = await enrol(ada, laptop);
    const forger = new SoftwareAuthenticator();
    await ceremonies.registrationOptions(ada, 'elsewhere').then((o) => forger.create(o, origin));
    const options = await ceremonies.authenticationOptions(ada, 'sign-in', ada);
    const forged = forger.get({ challenge: options?.challenge ?? '' }, origin);
    const error = await refusal(
      ceremonies.verifyAuthentication(ada, 'sign-in', ada, {
        ...forged,
        id: passkey.id,
        rawId: passkey.id,
      }),
    );
    expect(error.message).toBe('assertion not verified');
    expect((await factors.get(ada)).passkeys[0]).toEqual(passkey);
  });

  it('refuses an authenticator that proves only presence, not the person', async () => {
    const laptop = new SoftwareAuthenticator();
    const passkey = await enrol(ada, laptop);
    const options = await ceremonies.authenticationOptions(ada, 'sign-in', ada);
    const presenceOnly = new SoftwareAuthenticator({ verifiesUser: false });
    presenceOnly.passkeys.push(...laptop.passkeys);
    const error = await refusal(
      ceremonies.verifyAuthentication(
        ada,
        'sign-in',
        ada,
        presenceOnly.get(options ?? { challenge: '' }, origin, passkey.id),
      ),
    );
    expect(error.message).toMatch(/user could not be verified/);
  });

  it('refuses a passkey removed while its assertion was being checked', async () => {
    const laptop = new SoftwareAuthenticator();
    const passkey = await enrol(ada, laptop);
    await enrol(ada, new SoftwareAuthenticator(), 'Spare');
    const store = factors;
    const racing = new PasskeyCeremonies({
      origin,
      challenges,
      now: () => clock.now(),
      factors: {
        get: (email) => store.get(email),
        addPasskey: (email, added) => store.addPasskey(email, added),
        renamePasskey: (email, id, name) => store.renamePasskey(email, id, name),
        removePasskey: (email, id) => store.removePasskey(email, id),
        setTotpDisabled: (email, disabled) => store.setTotpDisabled(email, disabled),
        setTotpSecret: (email, sealed) => store.setTotpSecret(email, sealed),
        resealTotpSecret: (email, from, to) => store.resealTotpSecret(email, from, to),
        forget: (email) => store.forget(email),
        // The removal lands between the read of the passkeys and the recording of the use.
        recordUse: async (email, id, counter, at) => {
          expect(await store.removePasskey(email, id)).toBe('removed');
          return store.recordUse(email, id, counter, at);
        },
      },
    });
    const options = await racing.authenticationOptions(ada, 'sign-in', ada);
    const error = await refusal(
      racing.verifyAuthentication(
        ada,
        'sign-in',
        ada,
        laptop.get(options ?? { challenge: '' }, origin, passkey.id),
      ),
    );
    expect(error.message).toBe('the passkey was removed while it was being checked');
  });
});
