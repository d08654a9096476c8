import type { SecurityPolicy } from '@card-console/shared/api/security-policy';
import type { Request, Response } from 'express';
import type { NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange } from '../../platform/audit/audited-change';
import type { StepUp } from '../../platform/security/step-up';
import { who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import type { EnrolmentGate } from './enrolment-gate';
import type { SecurityPolicyStore } from './security-policy-store';

export interface SecurityPolicyDeps extends Pick<FeatureDeps, 'audit' | 'clock' | 'logger'> {
  stepUp: StepUp;
  /** The policy's store, made by the composition root over platform/sql's engine. */
  stores: { securityPolicy(): Promise<SecurityPolicyStore> };
  /** Holds sessions to the policy; told when it changes here. */
  enrolment: EnrolmentGate;
}

/** How an audit record shows the policy. */
const snapshot = (policy: SecurityPolicy) => ({
  secondFactorFor: policy.requireSecondFactor ? 'everyone' : 'admins',
});

/**
 * The security policy: everyone reads it, admins change it after a recent second-factor check
 * (as a role change in People needs), and each change is recorded with before → after in the
 * change's own transaction (a change the trail cannot record is not made: 503
 * `audit_unavailable`).
 */
export function createSecurityPolicyService(deps: SecurityPolicyDeps) {
  const store = () => deps.stores.securityPolicy();
  return {
    async get(): Promise<SecurityPolicy> {
      return (await store()).get();
    },

    async update(
      req: Request,
      res: Response,
      requireSecondFactor: boolean,
    ): Promise<SecurityPolicy> {
      await deps.stepUp.require(req, res);
      const person = who(req);
      const s = await store();
      const { after } = await auditedChange(
        deps,
        (audited) =>
          s.update(requireSecondFactor, person.actor.email, new Date(deps.clock.now()), audited),
        ({ before, after }): NewAuditRecord[] => [
          {
            actor: person.actor.email,
            role: person.actor.role,
            action: 'securityPolicy.update',
            target: 'security-policy',
            outcome: 'success',
            before: snapshot(before),
            after: snapshot(after),
            requestId: person.requestId,
          },
        ],
      );
      deps.enrolment.forget();
      return after;
    },
  };
}
