import { defineFeature } from '../../core/endpoint';
import { createSecurityPolicyService, type SecurityPolicyDeps } from './security-policy-service';

/**
 * The security policy: whether everyone must have a second factor (admins always must).
 * Everyone reads it (the Security screen says it), admins set it.
 */
export const securityPolicyFeature = defineFeature(
  'security-policy',
  (deps: SecurityPolicyDeps) => createSecurityPolicyService(deps),
  (endpoint) => [
    endpoint('securityPolicy.get', {
      summary: 'The security policy: whether everyone must have a second factor',
      example: '/api/security-policy',
      handler: ({ services }) => services.get(),
    }),
    endpoint('securityPolicy.update', {
      summary: 'Require a second factor of everyone, or of admins only (after a step-up)',
      attempted: 'securityPolicy.change',
      example: '/api/security-policy',
      handler: ({ req, res, services, body }) =>
        services.update(req, res, body.requireSecondFactor),
    }),
  ],
);
