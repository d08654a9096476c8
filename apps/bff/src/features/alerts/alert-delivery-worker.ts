// The delivery worker a BFF process runs beside its HTTP server, over the outbox of its engine:
// PostgreSQL's with DATABASE_URL (every replica polls it), else the embedded engine's.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { Config } from '../../env';
import type { AlertBacklog, Metrics } from '../../platform/metrics/metrics';
import { createEmailSender } from '../../platform/notify/email-sender';
import { createWebhookSender } from '../../platform/notify/webhook-sender';
import { type AlertDeliveryWorker, outboxDeliveryWorker } from './alert-delivery';
import type { AlertStores } from './alert-store';

const CHANNELS = ['email', 'webhook', 'digest'] as const;

export function createAlertDeliveryWorker(options: {
  config: Pick<Config, 'alertDelivery' | 'publicOrigin'>;
  stores: AlertStores;
  teamRecipients: () => readonly string[] | Promise<readonly string[]>;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * Whether the index is open: the worker never opens the embedded engine itself
   * (its first use does, a sync or a sign-in), and works the outbox once it is.
   */
  indexOpen?: () => boolean;
  /** How long a taken delivery is held before another worker may take it (tests shorten it). */
  leaseMs?: number;
  /** Each try's outcome, and the outbox's backlog read at scrape time. */
  metrics?: Pick<Metrics, 'alertDelivery' | 'trackAlertBacklog'>;
}): AlertDeliveryWorker {
  const { alertDelivery: settings, publicOrigin } = options.config;
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
  // One try per take: the outbox retries, with its backoff, across restarts and replicas.
  const webhooks = createWebhookSender({
    publicOrigin,
    clock: options.clock,
    retry: { maxAttempts: 1, attemptTimeoutMs: settings.timeoutMs },
  });
  const deps = {
    alerts: () => options.stores.alerts(),
    email,
    webhooks,
    webhookPolicy: settings.webhook,
    teamRecipients: options.teamRecipients,
    clock: options.clock,
    logger: options.logger,
    settings,
    metrics: options.metrics,
  };
  options.metrics?.trackAlertBacklog(async () => {
    // A scrape never opens the embedded engine: that is the index's first use's to do.
    if (options.indexOpen && !options.indexOpen()) return undefined;
    const now = options.clock.now();
    const rows = await (await options.stores.alerts()).deliveries.backlog();
    return CHANNELS.map((channel): AlertBacklog => {
      const row = rows.find((r) => r.channel === channel);
      return row
        ? {
            channel,
            pending: row.pending,
            oldestSeconds: Math.max(0, now - row.oldestAt.getTime()) / 1000,
          }
        : { channel, pending: 0, oldestSeconds: 0 };
    });
  });
  const worker = outboxDeliveryWorker({
    ...deps,
    ...(options.indexOpen ? { indexOpen: options.indexOpen } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
  });
  return {
    start: () => worker.start(),
    async stop() {
      await worker.stop();
      email?.close();
    },
  };
}
