import { AppError } from '../../core/app-error';
import { StoreUnavailableError } from '../../platform/store-unavailable';

/**
 * The dependencies `/readyz` checks: the card service always; PostgreSQL and the single
 * sign-on identity provider when configured, else the embedded database (open: its first open
 * takes seconds).
 */
export type DependencyName = 'upstream' | 'postgres' | 'database' | 'identityProvider';

/**
 * One dependency's readiness check for `/readyz`. `check` resolves when the dependency can
 * serve requests now, and rejects otherwise, quickly (a probe must not hang: give the engine
 * call its own short timeout). Reject with `NotReadyError` to say why in words a person
 * reads in the probe's answer (no URL, password or key in it); any other error is answered
 * as "did not answer the readiness check" and logged in full.
 */
export interface ReadinessCheck {
  name: DependencyName;
  check(requestId: string): Promise<void>;
}

/** A dependency is not ready, for the reason given (shown in `/readyz`'s answer). */
export class NotReadyError extends Error {
  override name = 'NotReadyError';
}

/** The card service's readiness: a simple read, with the upstream client's short deadline. */
export function upstreamReadiness(upstream: {
  checkReady(requestId: string): Promise<void>;
}): ReadinessCheck {
  return { name: 'upstream', check: (requestId) => upstream.checkReady(requestId) };
}

/** Why the card service failed its check, from the code the upstream client gave the failure. */
const upstreamReasons: Record<string, string> = {
  upstream_key_rejected: 'the card service refused the API key',
  upstream_unreachable: 'the card service is not reachable',
  upstream_timeout: 'the card service did not answer in time',
  upstream_unavailable: 'the card service is busy or unavailable',
  upstream_invalid_response: 'the card service sent an unexpected answer',
  upstream_bad_gateway: 'the card service answered with a redirect',
  upstream_error: 'the card service answered with an error',
};

/** The reason shown for a failed check; never the error's own text unless it was meant to be. */
export function notReadyReason(name: DependencyName, error: unknown): string {
  if (error instanceof NotReadyError) return error.message;
  if (name === 'upstream' && error instanceof AppError) {
    return upstreamReasons[error.code] ?? 'the card service failed the readiness check';
  }
  if (error instanceof StoreUnavailableError)
    return `${dependencyLabel(error.engine)} is not reachable`;
  return `${dependencyLabel(name)} did not answer the readiness check`;
}

/** The dependency as a sentence names it. */
export function dependencyLabel(name: DependencyName): string {
  return {
    upstream: 'the card service',
    postgres: 'PostgreSQL',
    database: 'the embedded database',
    identityProvider: 'the identity provider',
  }[name];
}
