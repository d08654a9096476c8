import type { SecurityPolicy } from '@card-console/shared/api/security-policy';
import type { EndpointName } from '@card-console/shared/contract/routes';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { Clock } from '../../core/clock';
import type { Endpoint } from '../../core/endpoint';
import type { SecondFactors } from '../../platform/passkeys/second-factors';
import { activeSession } from '../../platform/sessions/session-service';
import type { SessionRecord } from '../../platform/sessions/session-store';
import { StoreUnavailableError } from '../../platform/store-unavailable';
import { DEFAULT_SECURITY_POLICY, type SecurityPolicyStore } from './security-policy-store';

/**
 * What a session held to the policy may still call: who am I, sign out, and setting up a
 * second factor (public endpoints never reach the gate).
 */
export const ENROLMENT_ENDPOINTS: ReadonlySet<EndpointName> = new Set<EndpointName>([
  'session.get',
  'session.signOut',
  'security.secondFactors',
  'security.registrationOptions',
  'security.addPasskey',
  'security.setTotp',
  'security.totpSetup',
  'security.confirmTotp',
  'securityPolicy.get',
]);

export const enrolmentRequired = () =>
  new AppError(
    403,
    'second_factor_enrolment_required',
    'Your organisation requires a second factor. Add a passkey on Security to continue.',
  );

/** How long a replica reads the policy from memory before asking the store again. */
export const POLICY_CACHE_MS = 2_000;

export interface EnrolmentGateDeps {
  policy: () => Promise<Pick<SecurityPolicyStore, 'get'>>;
  factors: Pick<SecondFactors, 'methods'>;
  clock: Clock;
  cacheMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * The policy "require a second factor for everyone" at each request: a session signed in with a
 * password after the policy was turned on, by a person with no second factor, may only set one
 * up until they have (403 `second_factor_enrolment_required`). Sessions that proved a factor
 * (admins always do) cost nothing here; single sign-on sessions are the identity provider's to
 * hold to a second factor; sessions signed in before the policy was turned on are left alone (the
 * person is asked at their next sign-in). The policy is read at most every `cacheMs` per replica.
 */
export class EnrolmentGate {
  private cached: { policy: SecurityPolicy; until: number } | undefined;

  constructor(private readonly deps: EnrolmentGateDeps) {}

  /**
   * The policy, read at most every `cacheMs`. A store that cannot be reached leaves the policy
   * last read in force (or, before any was read, none: the password was checked, and the screens
   * that do not need the store keep working in an outage); the outage is logged.
   */
  private async policy(): Promise<SecurityPolicy> {
    const now = this.deps.clock.now();
    if (this.cached && this.cached.until > now) return this.cached.policy;
    try {
      const policy = await (await this.deps.policy()).get();
      this.cached = { policy, until: now + (this.deps.cacheMs ?? POLICY_CACHE_MS) };
      return policy;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      this.deps.logger?.warn({ err: error }, 'security policy unreadable: the last one read holds');
      return this.cached?.policy ?? DEFAULT_SECURITY_POLICY;
    }
  }

  /** Forgets the policy read, so the next request reads the one just saved. */
  forget(): void {
    this.cached = undefined;
  }

  /** True when this session may only set up a second factor. */
  async required(record: SessionRecord): Promise<boolean> {
    if (record.method === 'sso' || record.stepUpAt !== undefined) return false;
    const policy = await this.policy();
    if (!policy.requireSecondFactor || policy.updatedAt === undefined) return false;
    if (record.createdAt < Date.parse(policy.updatedAt)) return false;
    return (await this.deps.factors.methods(record.email)).length === 0;
  }

  /** Refuses a call a session held to the policy may not make (run after authorization). */
  async check(endpoint: Pick<Endpoint, 'name' | 'access'>, req: Request): Promise<void> {
    if (endpoint.access === 'public' || ENROLMENT_ENDPOINTS.has(endpoint.name)) return;
    const session = activeSession(req);
    if (session && (await this.required(session.record))) throw enrolmentRequired();
  }
}
