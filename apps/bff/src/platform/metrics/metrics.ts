import type { PaceState } from '../pagination/pace';
/**
 * What the BFF reports for Prometheus (`prometheus-metrics.ts`), as one injected object: no
 * global registry, so each test builds its own and code without metrics gets `noMetrics`.
 * Every label value is from a fixed set (a route template, an operation name, an error code),
 * never a raw path, id or message: a label is an unbounded time series, and a path can hold a
 * card number.
 */
export interface Metrics {
  /** One answered (or abandoned) request: `route` is a route template, never a raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** A 429 refusal, by its error code (`rate_limited`, `export_busy`). */
  rateLimited(route: string, code: string): void;
  /**
   * One logical upstream call (all its attempts), by operation (`GET /card/{id}`) and
   * outcome: `ok`, or the error code the person got (`upstream_timeout`, …).
   */
  observeUpstream(operation: string, outcome: string, seconds: number): void;
  /** An upstream retry in `lane` (people's calls, or the bulk walks). */
  upstreamRetry(operation: string, lane: UpstreamLane): void;
  /** A call or retry the lane's open circuit refused (the call failed instead, 503). */
  circuitRefused(operation: string, lane: UpstreamLane): void;
  /** Reports whether a lane's circuit is open (1) or closed (0) whenever metrics are collected. */
  trackCircuit(lane: UpstreamLane, open: () => number): void;
  /**
   * Reports the walks' pace (`platform/pagination/pace.ts`) whenever metrics are collected: the
   * pages it lets run at once, those in flight and waiting, whether a 429's wait holds them, and
   * the 429s it heard.
   */
  trackWalkPace(state: () => PaceState): void;
  /** A read that joined an identical one already in flight instead of calling upstream. */
  coalescedRead(operation: string): void;
  /** An audit record that could not be stored (the action it was for). */
  auditWriteFailed(action: string): void;
  /**
   * One call to a shared store's engine: `operation` a fixed name (`session.get`,
   * `audit.append`), never a key; `ok` false when it failed or timed out.
   */
  observeEngine(engine: Engine, operation: string, seconds: number, ok: boolean): void;
  /** A CSV export that was cut before its end (`shutdown`, `failed`, `client_gone`). */
  exportCut(reason: string): void;
  /** A CSV export began streaming; call the function returned once it has ended, however. */
  exportStarted(): () => void;
  /**
   * Asks `probe` for every dependency's readiness whenever metrics are collected (the same
   * shared, briefly cached checks `/readyz` runs), so the series holds without a balancer
   * probing `/readyz`.
   */
  trackReadiness(probe: () => Promise<readonly DependencyReadiness[]>): void;
  /** A password sign-in whose credentials were checked and refused. Never an email. */
  signInFailed(method: SignInMethod, reason: SignInFailure): void;
  /** A sign-in refused unchecked because one of its limits is full, by that limit. */
  signInLockedOut(limit: SignInLimit): void;
  /**
   * A changed (or SIGHUP-forced) read of the users file: `applied`, or why it could not be put
   * in place (the last good users stay in effect).
   */
  usersFileRead(outcome: 'applied' | 'unreadable' | 'invalid'): void;
  /** A single sign-on callback that signed no one in (or confirmed no step-up). */
  ssoCallbackFailed(reason: SsoCallbackFailure): void;
  /** One sync of a sub account into the transaction index ended, after `seconds`. */
  indexSyncEnded(outcome: IndexSyncOutcome, seconds: number): void;
  /** One page of transactions an index sync read from the card service. */
  indexSyncPage(): void;
  /**
   * Reports, whenever metrics are collected, the seconds the longest-owed index sync has been
   * owed (0 when none is).
   */
  trackIndexSyncLag(seconds: () => number): void;
  /**
   * Reads, whenever metrics are collected, how far the index syncs running on this replica are:
   * their days still to read and their rows read so far (both 0 when none runs).
   */
  trackIndexSyncProgress(read: () => { daysLeft: number; rows: number }): void;
  /** One try of an alert delivery by channel, and how it ended. */
  alertDelivery(channel: AlertDeliveryChannel, outcome: AlertDeliveryOutcome): void;
  /**
   * Asks `read` for the pending alert deliveries (the outbox, shared by the replicas) whenever
   * metrics are collected; undefined when the outbox cannot be read without opening it.
   */
  trackAlertBacklog(read: () => Promise<readonly AlertBacklog[] | undefined>): void;
}

export type Engine = 'postgres';
/** People's calls (`reads`), or the bulk walks': each has its own retries' circuit. */
export type UpstreamLane = 'reads' | 'bulk';
export interface DependencyReadiness {
  /** The dependency's name in `/readyz` (`upstream`, `postgres`, …). */
  dependency: string;
  ready: boolean;
}
export type SignInMethod = 'password' | 'password+totp' | 'password+passkey';
export type SignInFailure =
  | 'unknown_account'
  | 'bad_password'
  | 'account_disabled'
  | 'bad_totp'
  | 'passkey_refused';
/** A sign-in limit: per address, per account at one address, per account from everywhere. */
export type SignInLimit = 'address' | 'account_at_address' | 'account';
/**
 * `unmatched`: no sign-in in progress for it (forged, replayed, late; anyone can cause these);
 * `provider_error`: the provider sent an error back; `token_refused`: the code exchange or the
 * ID token failed its checks; `identity_refused`: no usable person (no verified email, an
 * unlinked or disabled users-file account); `no_role`: no role claim maps; `step_up_refused`:
 * a step-up the provider did not confirm; `error`: anything unexpected (a store, a bug).
 */
export type SsoCallbackFailure =
  | 'unmatched'
  | 'provider_error'
  | 'token_refused'
  | 'identity_refused'
  | 'no_role'
  | 'step_up_refused'
  | 'error';

/** `synced`: every due day walked; `failed`: the walk stopped (the card service, the store, a cut). */
export type IndexSyncOutcome = 'synced' | 'failed';
export type AlertDeliveryChannel = 'email' | 'webhook' | 'digest';
/**
 * `sent`; `retrying`: this try failed, a later one is due; `given_up`: failed for good (the
 * last try, or a failure no retry mends); `not_configured`: email asked of a server without
 * SMTP (demo mode's default: said, not a failure).
 */
export type AlertDeliveryOutcome = 'sent' | 'retrying' | 'given_up' | 'not_configured';
export interface AlertBacklog {
  channel: AlertDeliveryChannel;
  /** Deliveries neither sent nor given up. */
  pending: number;
  /** Seconds since the oldest of them was written; 0 when none is pending. */
  oldestSeconds: number;
}

const nothing = () => {};

/** Reports nothing: the default where no registry is wired (most tests, tools). */
export const noMetrics: Metrics = {
  observeRequest: nothing,
  rateLimited: nothing,
  observeUpstream: nothing,
  upstreamRetry: nothing,
  circuitRefused: nothing,
  trackCircuit: nothing,
  trackWalkPace: nothing,
  coalescedRead: nothing,
  auditWriteFailed: nothing,
  observeEngine: nothing,
  exportCut: nothing,
  exportStarted: () => nothing,
  trackReadiness: nothing,
  signInFailed: nothing,
  signInLockedOut: nothing,
  usersFileRead: nothing,
  ssoCallbackFailed: nothing,
  indexSyncEnded: nothing,
  indexSyncPage: nothing,
  trackIndexSyncLag: nothing,
  trackIndexSyncProgress: nothing,
  alertDelivery: nothing,
  trackAlertBacklog: nothing,
};

/** Times `work` and reports it to `observeEngine`; the store code's one-line way to report. */
export async function timedEngineCall<T>(
  metrics: Metrics,
  engine: Engine,
  operation: string,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    const result = await work();
    metrics.observeEngine(engine, operation, (performance.now() - started) / 1000, true);
    return result;
  } catch (error) {
    metrics.observeEngine(engine, operation, (performance.now() - started) / 1000, false);
    throw error;
  }
}
