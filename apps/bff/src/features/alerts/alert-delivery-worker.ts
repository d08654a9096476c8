// The delivery worker a BFF process runs beside its HTTP server: pg-boss with DATABASE_URL
// (shared by the replicas), else the in-process worker over the embedded engine's outbox.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { Config } from '../../env';
import { createEmailSender } from '../../platform/notify/email-sender';
import { createWebhookSender } from '../../platform/notify/webhook-sender';
import type { TransactionIndex } from '../transaction-index';
import { type AlertDeliveryWorker, inProcessDeliveryWorker } from './alert-delivery';
import { pgBossDeliveryWorker } from './pg-boss-delivery';

export function createAlertDeliveryWorker(options: {
  config: Pick<Config, 'alertDelivery' | 'publicOrigin' | 'databaseUrl'>;
  transactionIndex: Pick<TransactionIndex, 'alerts'>;
  teamRecipients: () => readonly string[] | Promise<readonly string[]>;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * Whether the index is open: the in-process worker never opens the embedded engine itself
   * (its first use does, a sync or a sign-in), and works the outbox once it is.
   */
  indexOpen?: () => boolean;
}): AlertDeliveryWorker {
  const { alertDelivery: settings, publicOrigin, databaseUrl } = options.config;
  const email =
    settings.smtpUrl && settings.emailFrom
      ? createEmailSender({
          smtp: settings.smtpUrl,
          from: settings.emailFrom,
          publicOrigin,
          timeouts: {
            connectionMs: settings.timeoutMs,
            greetingMs: settings.timeoutMs,
            socketMs: settings.timeoutMs,
            dnsMs: settings.timeoutMs,
          },
        })
      : null;
  // One try per job: the queue retries, with its backoff, across restarts and replicas.
  const webhooks = createWebhookSender({
    publicOrigin,
    clock: options.clock,
    retry: { maxAttempts: 1, attemptTimeoutMs: settings.timeoutMs },
  });
  const deps = {
    alerts: () => options.transactionIndex.alerts(),
    email,
    webhooks,
    webhookPolicy: settings.webhook,
    teamRecipients: options.teamRecipients,
    clock: options.clock,
    logger: options.logger,
    settings,
  };
  const worker = databaseUrl
    ? pgBossDeliveryWorker({ ...deps, connectionString: databaseUrl })
    : inProcessDeliveryWorker({
        ...deps,
        ...(options.indexOpen ? { indexOpen: options.indexOpen } : {}),
      });
  return {
    start: () => worker.start(),
    async stop() {
      await worker.stop();
      email?.close();
    },
  };
}
