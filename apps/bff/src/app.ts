import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from './env';
import { createAuditRouter } from './features/audit/audit-router';
import { createCardsRouter } from './features/cards/cards-router';
import { createHealthRouter, type ReadinessProbe } from './features/health/health-router';
import { createMetaRouter } from './features/meta/meta-router';
import { createSessionRouter } from './features/session/session-router';
import { createSubAccountsRouter } from './features/sub-accounts/sub-accounts-router';
import { createTransactionsRouter } from './features/transactions/transactions-router';
import { authorize } from './http/authorize';
import { csrfGuard } from './http/csrf';
import type { AuditStore, Clock, FeatureDeps } from './http/deps';
import { apiNotFound, errorHandler } from './http/error-handler';
import { httpLogger } from './http/http-logger';
import { jsonBody } from './http/json-body';
import { requestId } from './http/request-id';
import { noStore, securityHeaders } from './http/security-headers';
import { sessionLoader } from './http/session-loader';
import { spa } from './http/spa';
import {
  createRateLimiters,
  memoryRateLimiters,
  type RateLimiterFactory,
} from './platform/security/rate-limits';
import { TotpStepUp } from './platform/security/step-up';
import { MemoryUsedCodeLedger, TotpVerifier, type UsedCodeLedger } from './platform/security/totp';
import { SessionService } from './platform/sessions/session-service';
import type { SessionStore } from './platform/sessions/session-store';
import type { UserDirectory } from './platform/users/user-directory';
import type { UpstreamClient } from './upstream/client';

export interface AppDeps {
  config: Config;
  upstream: UpstreamClient & ReadinessProbe;
  users: UserDirectory;
  sessionStore: SessionStore;
  /** Where rate-limit counters live (memory by default, Redis for several replicas). */
  rateLimiters?: RateLimiterFactory;
  /** Which TOTP time steps were used (replay protection); memory by default. */
  usedCodes?: UsedCodeLedger;
  audit: AuditStore;
  clock: Clock;
  logger: Logger;
}

/** The whole BFF as an Express app. No globals: everything comes in through `deps`. */
export function createApp(deps: AppDeps): Express {
  const { config, logger, clock, audit } = deps;
  const sessions = new SessionService(deps.sessionStore, clock, config);
  const limiters = createRateLimiters(deps.rateLimiters ?? memoryRateLimiters, config.rateLimits);
  const totp = new TotpVerifier(clock, deps.usedCodes ?? new MemoryUsedCodeLedger());
  const stepUp = new TotpStepUp(sessions, deps.users, totp);
  const featureDeps: FeatureDeps = { upstream: deps.upstream, audit, stepUp, logger, clock };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'extended'); // so `a[]=1` arrives as an array and is refused, not renamed

  app.use(requestId());
  app.use(httpLogger(logger));
  app.use(securityHeaders(config.mode));
  app.use(createHealthRouter(deps.upstream, logger));

  // Cheap checks first: a forged or anonymous request is refused before its body is read.
  app.use('/api', noStore, csrfGuard(config.allowedOrigins), sessionLoader(sessions));
  app.use('/api', authorize({ audit, limiters, logger }));
  app.use('/api', ...jsonBody());

  app.use(createMetaRouter(config.mode));
  app.use(createSessionRouter({ sessions, users: deps.users, totp, limiters, audit, logger }));
  app.use(createAuditRouter(audit));
  app.use(createSubAccountsRouter(featureDeps));
  app.use(createCardsRouter(featureDeps));
  app.use(createTransactionsRouter(featureDeps));
  app.use('/api', apiNotFound);

  app.use(spa(config.webDist));
  app.use(errorHandler(logger));
  return app;
}
