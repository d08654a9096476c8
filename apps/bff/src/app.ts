import { join } from 'node:path';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import qs from 'qs';
import type { Clock } from './core/clock';
import type { Config } from './env';
import { raiseAlertsOnSync } from './features/alerts/alert-sync';
import {
  type CardDirectory,
  createCardDirectory,
  upstreamCardPages,
} from './features/cards/card-directory';
import type { FeatureDeps } from './features/feature-deps';
import { type ReadinessCheck, upstreamReadiness } from './features/health/readiness';
import type { PeopleStore } from './features/people/people-store';
import type { PersonSessions } from './features/people/person-sessions';
import {
  createReceiptInboxService,
  type ReceiptInboxService,
  type ReceiptReading,
} from './features/receipt-inbox/inbox-service';
import { lazyReceiptReader } from './features/receipt-inbox/reading/lazy-reader';
import { EnrolmentGate } from './features/security-policy';
import type { RelyingParty } from './features/sso/relying-party';
import { indexSearchOf, keepOpenDaysFresh } from './features/transaction-index';
import { upstreamSubAccountList } from './features/transaction-index/sub-account-list';
import { type ApiDeps, apiFeatures } from './http/api-endpoints';
import { createApiRouter } from './http/api-router';
import { type Authorizer, createAuthorizer } from './http/authorize';
import { errorHandler } from './http/error-handler';
import { createHealthRouter } from './http/health-router';
import { httpLogger } from './http/http-logger';
import { requestId } from './http/request-id';
import { securityHeaders } from './http/security-headers';
import { spa } from './http/spa';
import type { AuditStore } from './platform/audit/audit-store';
import {
  type DayAggregateStore,
  MemoryDayAggregateStore,
} from './platform/day-aggregates/day-aggregate-store';
import { type BackgroundJobs, createBackgroundJobs } from './platform/jobs/background-jobs';
import type { KeyedLock } from './platform/locks/keyed-lock';
import { MemoryKeyedLock } from './platform/locks/memory-keyed-lock';
import { countAuditFailures } from './platform/metrics/counted-audit-store';
import { type Metrics, noMetrics } from './platform/metrics/metrics';
import { invitationSenderFromSettings } from './platform/notify/invitation-email';
import type { FactorStore } from './platform/passkeys/factor-store';
import { PasskeyCeremonies } from './platform/passkeys/passkey-ceremonies';
import { SecondFactors } from './platform/passkeys/second-factors';
import { type ExportReceipts, MemoryExportReceipts } from './platform/security/export-receipts';
import { type ExportSlots, MemoryExportSlots } from './platform/security/export-slots';
import {
  MemoryOneTimeStore,
  ONE_TIME_LIMITS,
  type OneTimeStore,
} from './platform/security/one-time-store';
import {
  createRateLimiters,
  memoryRateLimiters,
  type RateLimiterFactory,
} from './platform/security/rate-limits';
import { SecondFactorStepUp } from './platform/security/step-up';
import { MemoryUsedCodeLedger, TotpVerifier, type UsedCodeLedger } from './platform/security/totp';
import { TotpSecretBox } from './platform/security/totp-secret-box';
import { type SessionRegistry, SessionService } from './platform/sessions/session-service';
import type { SessionStore } from './platform/sessions/session-store';
import { embeddedEngine } from './platform/sql/sql-engine';
import { createHashingGate } from './platform/users/hashing-gate';
import type { PersonDirectory } from './platform/users/person-directory';
import { openStores, type Stores } from './stores';
import type { UpstreamClient } from './upstream/client';
import { createWalkGate } from './upstream/walk-gate';

/** qs's own cap on a query string's parameters; a key may repeat up to it. */
const QUERY_PARAMETER_LIMIT = 1000;

export interface AppDeps {
  config: Config;
  upstream: UpstreamClient;
  /** Who may sign in: the people store (server.ts), or the users file in memory. */
  users: PersonDirectory;
  sessionStore: SessionStore;
  /** Where rate-limit counters live (memory by default, PostgreSQL for several replicas). */
  rateLimiters?: RateLimiterFactory;
  /** Which TOTP time steps were used (replay protection); memory by default. */
  usedCodes?: UsedCodeLedger;
  /** Per-card edit serialisation; in memory by default (one replica). */
  locks?: KeyedLock;
  /** Running CSV exports against `config.exportCaps`; in memory by default (one replica). */
  exportSlots?: ExportSlots;
  /** Finished exports' receipts; in memory by default (one replica). */
  exportReceipts?: ExportReceipts;
  /** Admins' passkeys and TOTP setting (durable: a file in DATA_DIR, or PostgreSQL). */
  factorStore: FactorStore;
  /** WebAuthn challenges, each good once; memory by default. */
  challengeStore?: OneTimeStore;
  /** Pending single sign-ons, each taken once by its callback: apart from the challenges, so
   * anonymous starts cannot evict them; memory by default. */
  ssoPendingStore?: OneTimeStore;
  /** Single sign-on's relying party, when `config.sso` is set (index.ts resolves 'demo'). */
  relyingParty?: RelyingParty;
  audit: AuditStore;
  clock: Clock;
  logger: Logger;
  /** Where requests, upstream calls, refusals and audit failures are counted; none by default. */
  metrics?: Metrics;
  /** What /readyz checks besides the card service (PostgreSQL when configured). */
  readiness?: ReadinessCheck[];
  /** True once shutdown has begun: /readyz fails so a balancer stops sending. */
  isDraining?: () => boolean;
  /** Aborted when a shutdown's grace period ends: exports still running are cut. */
  cutOff?: AbortSignal;
  /** Card names for transactions; by default walked from the card service (`card-directory.ts`). */
  cardDirectory?: CardDirectory;
  /** The Overview's per-day aggregates; in memory by default (one replica). */
  dayAggregates?: DayAggregateStore;
  /**
   * The features' stores over the one database (`stores.ts`); by default the embedded engine
   * in `DATA_DIR/transaction-index`, opened on first use.
   */
  stores?: Stores;
  /**
   * Background work the replicas share over `stores`' engine (the index's syncs), started by the
   * composition root; by default jobs a read runs itself, with no worker polling.
   */
  backgroundJobs?: BackgroundJobs;
  /**
   * The receipt inbox (server.ts makes it, to hand the mail listener too); by default one over
   * `stores` and `backgroundJobs`, reading with `receiptReader`.
   */
  receiptInbox?: ReceiptInboxService;
  /** What reads inbox receipts; by default a reader process started at the first file. */
  receiptReader?: ReceiptReading;
  /**
   * The open days read again in the background while an alert rule is on, every `everyMs`
   * (`keepOpenDaysFresh`), once `engineOpen()` (never opening the embedded engine for it); none
   * by default: the composition root starts it, as it does the other background work.
   */
  openDaysRefresh?: { everyMs: number; engineOpen: () => boolean };
  /** People kept in the SQL store (server.ts): the People endpoints answer only with it. */
  people?: { store: PeopleStore; sessions: PersonSessions };
  /** Told of every session's start, activity and end, so admins can list and end them. */
  sessionRegistry?: SessionRegistry;
}

/**
 * How long an edit waits for the card's previous edit (a read and a PATCH, each with the
 * upstream's 12 s deadline) before it answers 503 and asks the person to retry.
 */
const EDIT_WAIT_MS = 10_000;

/**
 * The whole BFF as one Express app, for `http.createServer`. No globals: everything comes in
 * through `deps`. Middleware order: the request id, the log line and the security headers for
 * every response; health checks; the API router at /api (endpoint declarations, see
 * `http/api-endpoints.ts`); the SPA's pages and assets; the one error middleware.
 */
export function createApp(deps: AppDeps): Express {
  const { config, logger, clock } = deps;
  const metrics = deps.metrics ?? noMetrics;
  const audit = countAuditFailures(deps.audit, metrics);
  const sessions = new SessionService(
    deps.sessionStore,
    clock,
    config,
    deps.users,
    deps.sessionRegistry,
  );
  const limiters = createRateLimiters(
    deps.rateLimiters ?? memoryRateLimiters,
    config.rateLimits,
    config.session,
  );
  const totp = new TotpVerifier(clock, deps.usedCodes ?? new MemoryUsedCodeLedger());
  const challenges =
    deps.challengeStore ?? new MemoryOneTimeStore(clock, ONE_TIME_LIMITS.challenges);
  const factors = new SecondFactors(
    deps.users,
    deps.factorStore,
    new TotpSecretBox(config.totpKeys),
  );
  const passkeys = new PasskeyCeremonies({
    origin: config.publicOrigin,
    factors: deps.factorStore,
    challenges,
    now: () => clock.now(),
  });
  const stepUp = new SecondFactorStepUp({
    sessions,
    factors,
    passkeys,
    totp,
    limiters,
    audit,
    logger,
  });
  const rp = deps.relyingParty;
  const hashing = createHashingGate({
    atOnce: config.rateLimits.signInHashesAtOnce,
    queued: config.rateLimits.signInHashesQueued,
  });
  const exportSlots = deps.exportSlots ?? new MemoryExportSlots(config.exportCaps);
  const locks = deps.locks ?? new MemoryKeyedLock({ waitMs: EDIT_WAIT_MS });
  const featureDeps: FeatureDeps = {
    upstream: deps.upstream,
    audit,
    stepUp,
    logger,
    clock,
    locks,
    exportSlots,
    exportReceipts: deps.exportReceipts ?? new MemoryExportReceipts({ now: () => clock.now() }),
    metrics,
    cutOff: deps.cutOff ?? new AbortController().signal,
    cardDirectory:
      deps.cardDirectory ??
      createCardDirectory({ listPage: upstreamCardPages(deps.upstream), clock, logger }),
    walkGate: createWalkGate(config.walkCaps),
  };

  const stores =
    deps.stores ??
    openStores({
      open: () => embeddedEngine(join(config.dataDir, 'transaction-index'), { thread: 'worker' }),
      logger,
    });
  const backgroundJobs =
    deps.backgroundJobs ??
    createBackgroundJobs({
      sql: stores.sql,
      isOpen: () => stores.isOpen(),
      clock,
      cutOff: featureDeps.cutOff,
      logger,
    });

  // The card service's sub-account list, kept for the refresh age: the index's "all sub
  // accounts" reads and the balance alerts share it.
  const subAccountList = upstreamSubAccountList(deps.upstream, clock, config.insightsRefreshMs);

  const filePasswords = config.mode === 'demo' || config.usersFile !== undefined;
  const peopleStore = deps.people?.store;

  const receiptInbox =
    deps.receiptInbox ??
    createReceiptInboxService({
      ...featureDeps,
      stores,
      backgroundJobs,
      receiptReader: deps.receiptReader ?? lazyReceiptReader(logger),
      receiptMailDomain: config.receiptMail?.domain,
    });

  // The security policy's hold on sessions of people without a second factor (features/security-policy).
  const enrolment = new EnrolmentGate({
    policy: () => stores.securityPolicy(),
    factors,
    clock,
    logger,
  });

  const apiDeps: ApiDeps = {
    ...featureDeps,
    enrolment,
    mode: config.mode,
    signInWays: {
      // With a users file (or the demo's accounts) there are passwords; otherwise (single
      // sign-on only) once someone took up an invitation.
      password:
        filePasswords || !peopleStore ? filePasswords : () => peopleStore.anyoneWithPassword(),
      ssoLabel: rp?.label,
    },
    sessions,
    users: deps.users,
    totp,
    factors,
    passkeys,
    pendingTotp: challenges,
    limiters,
    hashing,
    rp,
    signedOutUrl: `${config.publicOrigin}/sign-in`,
    largeMaximumCents: config.limitWarningMaximumCents,
    sso: rp
      ? {
          rp,
          pending:
            deps.ssoPendingStore ?? new MemoryOneTimeStore(clock, ONE_TIME_LIMITS.ssoPending),
          sessions,
          users: deps.users,
          limiters,
          audit,
          logger,
          config,
          metrics,
        }
      : undefined,
    dayAggregates:
      deps.dayAggregates ?? new MemoryDayAggregateStore({ maxBytes: config.insightsMemoryBytes }),
    insightsRefreshMs: config.insightsRefreshMs,
    stores,
    backgroundJobs,
    // Invitations are emailed too when alert email is set up (ALERT_SMTP_URL, ALERT_EMAIL_FROM).
    people: deps.people && {
      ...deps.people,
      // A person removed takes their passkeys and own authenticator with them.
      factors: deps.factorStore,
      sendInvitation: invitationSenderFromSettings(config.alertDelivery, config.publicOrigin),
    },
    indexRefreshMs: config.insightsRefreshMs,
    indexCursorSecret: config.sessionSecret,
    receiptsZip: config.receiptsZip,
    receiptInbox,
    // Where admins may point webhooks (ALERT_WEBHOOK_ALLOW_*), checked when a target is saved.
    alertWebhookPolicy: config.alertDelivery.webhook,
    alertLimits: config.alertLimits,
    subAccountList,
    // The alerts evaluate what each sync writes; a team rule's go to everyone the users know.
    indexRowsWritten: raiseAlertsOnSync({
      stores,
      cardDirectory: featureDeps.cardDirectory,
      clock,
      logger,
      subAccountBalances: async (ctx) =>
        new Map(
          (await subAccountList.all(ctx)).flatMap((s) =>
            s.balance
              ? [[s.id, { balanceCents: s.balance.amountCents, name: s.name }] as const]
              : [],
          ),
        ),
      teamRecipients: () => deps.users.emails(),
      emailsPerHour: config.alertLimits.emailsPerHour,
      merchantNames: (descriptors) => indexSearchOf(apiDeps).merchantNames(descriptors),
    }),
  };

  if (deps.openDaysRefresh) {
    const { everyMs, engineOpen } = deps.openDaysRefresh;
    keepOpenDaysFresh({
      everyMs,
      signal: featureDeps.cutOff,
      due: async () => engineOpen() && (await (await stores.alerts()).enabledRules()).length > 0,
      refresh: (requestId) => indexSearchOf(apiDeps).refreshOpenDays(requestId),
      logger,
    });
  }

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  // Express's extended parser (so `a[]=1` arrives as an array and is refused, not renamed),
  // with qs's array limit raised from 20 to its parameter limit: a key repeated more often
  // (21 cards in a filter) stays a list, which the route's schema bounds with a clear 400.
  app.set('query parser', (text: string) =>
    qs.parse(text, { allowPrototypes: true, arrayLimit: QUERY_PARAMETER_LIMIT }),
  );

  // Every response, page or API, gets a request id, a log line and the security headers.
  app.use(requestId(), httpLogger(logger, metrics), securityHeaders(config.mode));
  app.use(
    createHealthRouter({
      checks: [upstreamReadiness(deps.upstream), ...(deps.readiness ?? [])],
      logger,
      clock,
      ...(deps.isDraining ? { isDraining: deps.isDraining } : {}),
      metrics,
    }),
  );
  app.use(
    '/api',
    createApiRouter({
      sessions,
      allowedOrigins: config.allowedOrigins,
      logger,
      authorize: withEnrolmentGate(createAuthorizer({ audit, limiters, logger }), enrolment),
      features: apiFeatures,
      deps: apiDeps,
    }),
  );
  app.use(spa(config.webDist));
  app.use(errorHandler(logger));
  return app;
}

/** The authorizer, then the security policy's hold on a session that must set up a second factor. */
function withEnrolmentGate(authorizer: Authorizer, gate: EnrolmentGate): Authorizer {
  return {
    check: async (rule, req) => {
      await authorizer.check(rule, req);
      await gate.check(rule, req);
    },
    refuseForeignOrigin: (rule, req) => authorizer.refuseForeignOrigin(rule, req),
  };
}
