// What other features and the composition root may use of the security policy: its store (made
// by src/stores.ts over the database platform/sql opens) and the gate that holds sessions to it.
export {
  ENROLMENT_ENDPOINTS,
  EnrolmentGate,
  enrolmentRequired,
  POLICY_CACHE_MS,
} from './enrolment-gate';
export {
  DEFAULT_SECURITY_POLICY,
  type SecurityPolicyStore,
  SqlSecurityPolicyStore,
} from './security-policy-store';
