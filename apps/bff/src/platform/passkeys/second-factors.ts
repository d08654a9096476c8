import type { StepUpMethod } from '@card-console/shared/api/session';
import type { SessionRecord } from '../sessions/session-store';
import type { PersonDirectory } from '../users/person-directory';
import type { FactorStore } from './factor-store';

/**
 * Which second factors a person holds: a TOTP secret of the person's (people store or users file) (unless they turned
 * TOTP off once a passkey was enrolled), passkeys, and, for a single sign-on session, a fresh
 * sign-in at the provider. Admins always need one; anyone else once they have one (or once the
 * security policy requires one of everyone: features/security-policy).
 */
export class SecondFactors {
  constructor(
    private readonly users: Pick<PersonDirectory, 'find'>,
    readonly store: FactorStore,
  ) {}

  /** The TOTP secret when codes are accepted for this person, else undefined. */
  async totpSecret(email: string): Promise<string | undefined> {
    const secret = (await this.users.find(email))?.totpSecret;
    if (!secret) return undefined;
    const { totpDisabled } = await this.store.get(email);
    return totpDisabled ? undefined : secret;
  }

  /** A person's own factors (no provider): what sign-in with a password may ask for. */
  async methods(email: string): Promise<('totp' | 'passkey')[]> {
    const factors = await this.store.get(email);
    const methods: ('totp' | 'passkey')[] = [];
    if (factors.passkeys.length > 0) methods.push('passkey');
    if ((await this.users.find(email))?.totpSecret && !factors.totpDisabled) methods.push('totp');
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
    const available = (await this.users.find(email))?.totpSecret !== undefined;
    const { totpDisabled } = await this.store.get(email);
    return { available, enabled: available && !totpDisabled };
  }
}
