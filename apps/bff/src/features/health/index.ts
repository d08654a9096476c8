// What other features may use of the health feature: a readiness check and its refusal.
export { NotReadyError, type ReadinessCheck } from './readiness';
