import type { StepUpMethod } from '@card-console/shared/api/session';
import { secondFactorUnavailable, type TotpSecretBox } from '../security/totp-secret-box';
import type { SessionRecord } from '../sessions/session-store';
import type { PersonDirectory } from '../users/person-directory';
import { type FactorStore, ownTotpSecretOwner, type PersonFactors } from './factor-store';

/**
 * Which second factors a person holds: a TOTP secret of the person's (one they set up on
 * Security, kept sealed in the factor store, else one in the people store or users file) (unless they turned
 * TOTP off once a passkey was enrolled), passkeys, and, for a single sign-on session, a fresh
 * sign-in at the provider. Admins always need one; anyone else once they have one (or once the
 * security policy requires one of everyone: features/security-policy).
 */
export class SecondFactors {
  constructor(
    private readonly users: Pick<PersonDirectory, 'find'>,
    readonly store: FactorStore,
    /** Opens secrets people set up themselves (and seals new ones). */
    readonly box: TotpSecretBox,
  ) {}

  /**
   * The person's own secret when they set one up, else the directory's. One sealed under a
   * previous key is sealed again under the current one as it is read (unless replaced meanwhile),
   * as the people store's secrets are; one no configured key opens is a 503
   * `second_factor_unavailable` (their codes cannot be checked).
   */
  private async secretOf(email: string, factors: PersonFactors): Promise<string | undefined> {
    const stored = factors.totpSecret;
    if (stored !== undefined) {
      const owner = ownTotpSecretOwner(email);
      let opened: { secret: string; current: boolean };
      try {
        opened = this.box.open(owner, stored);
      } catch (error) {
        throw secondFactorUnavailable(error) ?? error;
      }
      if (!opened.current) {
        await this.store.resealTotpSecret(email, stored, this.box.seal(owner, opened.secret));
      }
      return opened.secret;
    }
    return (await this.users.find(email))?.totpSecret || undefined;
  }

  /** Whether the person has a TOTP secret at all (on or off), without opening it. */
  private async hasSecret(email: string, factors: PersonFactors): Promise<boolean> {
    return factors.totpSecret !== undefined || !!(await this.users.find(email))?.totpSecret;
  }

  /** A new secret, sealed for the person's own factors (what `store.setTotpSecret` keeps). */
  sealOwn(email: string, secret: string): string {
    return this.box.seal(ownTotpSecretOwner(email), secret);
  }

  /** The TOTP secret when codes are accepted for this person, else undefined. */
  async totpSecret(email: string): Promise<string | undefined> {
    const factors = await this.store.get(email);
    if (factors.totpDisabled) return undefined;
    return this.secretOf(email, factors);
  }

  /** A person's own factors (no provider): what sign-in with a password may ask for. */
  async methods(email: string): Promise<('totp' | 'passkey')[]> {
    const factors = await this.store.get(email);
    const methods: ('totp' | 'passkey')[] = [];
    if (factors.passkeys.length > 0) methods.push('passkey');
    if (!factors.totpDisabled && (await this.hasSecret(email, factors))) methods.push('totp');
    return methods;
  }

  /** What this session can step up with now: the person's own factors (and, under SSO, the provider). */
  async stepUpMethods(record: Pick<SessionRecord, 'email' | 'role' | 'method'>) {
    const methods: StepUpMethod[] = await this.methods(record.email);
    // A password session never holds the provider's subject: only SSO can re-authenticate there.
    if (record.method === 'sso') {
      const own = methods.filter((m) => m === 'passkey');
      return [...own, 'provider'] as StepUpMethod[];
    }
    return methods;
  }

  /** TOTP state for GET /api/second-factors. */
  async totpState(email: string): Promise<{ available: boolean; enabled: boolean }> {
    const factors = await this.store.get(email);
    const available = await this.hasSecret(email, factors);
    return { available, enabled: available && !factors.totpDisabled };
  }
}
