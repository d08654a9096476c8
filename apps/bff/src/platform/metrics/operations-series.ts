import { Counter, Gauge, type Registry } from 'prom-client';
import type {
  DependencyReadiness,
  Metrics,
  SignInFailure,
  SignInLimit,
  SignInMethod,
  SsoCallbackFailure,
} from './metrics';

type OperationsMetrics = Pick<
  Metrics,
  | 'exportStarted'
  | 'trackReadiness'
  | 'signInFailed'
  | 'signInLockedOut'
  | 'usersFileRead'
  | 'ssoCallbackFailed'
>;

/** The reasons each sign-in method can fail for: every pair exists from the start. */
const SIGN_IN_FAILURES: Record<SignInMethod, readonly SignInFailure[]> = {
  password: ['unknown_account', 'bad_password', 'account_disabled'],
  'password+totp': ['bad_totp'],
  'password+passkey': ['passkey_refused'],
};
const SIGN_IN_LIMITS: readonly SignInLimit[] = ['address', 'account_at_address', 'account'];
const SSO_FAILURES: readonly SsoCallbackFailure[] = [
  'unmatched',
  'provider_error',
  'token_refused',
  'identity_refused',
  'no_role',
  'step_up_refused',
  'error',
];

/**
 * The series an operator alerts on besides traffic: readiness per dependency, sign-in
 * failures and lock-outs, users-file reloads, single sign-on callbacks, exports running.
 * Counters whose label values are a fixed set start at 0 for each: Prometheus's `increase()`
 * cannot see a series' first sample as an increase, so a counter born at 1 would hide the
 * first failure from an alert.
 */
export function createOperationsSeries(registry: Registry): OperationsMetrics {
  const registers = [registry];
  const exportsRunning = new Gauge({
    name: 'bff_csv_exports_in_progress',
    help: 'CSV exports (transactions and audit) streaming from this replica now.',
    registers,
  });
  let readiness: (() => Promise<readonly DependencyReadiness[]>) | undefined;
  new Gauge({
    name: 'bff_dependency_ready',
    help: 'Whether each dependency /readyz checks can serve (1) or not (0), checked at scrape time.',
    labelNames: ['dependency'],
    registers,
    async collect() {
      if (!readiness) return;
      try {
        for (const { dependency, ready } of await readiness()) {
          this.set({ dependency }, ready ? 1 : 0);
        }
      } catch {
        // The checks catch their own failures; should the probe itself fail, the scrape still
        // answers, without readiness values rather than with old ones.
        this.reset();
      }
    },
  });
  const signInFailures = new Counter({
    name: 'bff_sign_in_failures_total',
    help: 'Password sign-ins whose credentials were refused, by method and reason (never who).',
    labelNames: ['method', 'reason'],
    registers,
  });
  for (const [method, reasons] of Object.entries(SIGN_IN_FAILURES)) {
    for (const reason of reasons) signInFailures.inc({ method, reason }, 0);
  }
  const lockedOut = new Counter({
    name: 'bff_sign_in_locked_out_total',
    help: 'Sign-ins refused unchecked (429) because a limit is full, by the limit that refused.',
    labelNames: ['limit'],
    registers,
  });
  for (const limit of SIGN_IN_LIMITS) lockedOut.inc({ limit }, 0);
  const usersFileFailures = new Counter({
    name: 'bff_users_file_reload_failures_total',
    help: 'Reads of USERS_FILE that could not be put in place (the last good users stay), by reason.',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of ['unreadable', 'invalid']) usersFileFailures.inc({ reason }, 0);
  // Made at the first read: without a users file (demo, single sign-on only) there is no series.
  let usersFileUpToDate: Gauge | undefined;
  const ssoFailures = new Counter({
    name: 'bff_sso_callback_failures_total',
    help: 'Single sign-on callbacks that signed no one in or confirmed no step-up, by reason.',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of SSO_FAILURES) ssoFailures.inc({ reason }, 0);

  return {
    exportStarted() {
      exportsRunning.inc();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        exportsRunning.dec();
      };
    },
    trackReadiness: (probe) => {
      readiness = probe;
    },
    signInFailed: (method, reason) => signInFailures.inc({ method, reason }),
    signInLockedOut: (limit) => lockedOut.inc({ limit }),
    usersFileRead(outcome) {
      usersFileUpToDate ??= new Gauge({
        name: 'bff_users_file_up_to_date',
        help: 'Whether the users in effect are the users file as last read (0: that read failed and the last good users stay).',
        registers,
      });
      usersFileUpToDate.set(outcome === 'applied' ? 1 : 0);
      if (outcome !== 'applied') usersFileFailures.inc({ reason: outcome });
    },
    ssoCallbackFailed: (reason) => ssoFailures.inc({ reason }),
  };
}
