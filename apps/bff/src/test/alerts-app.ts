// What the alerts' tests of the whole app share: the app on the simulator's 400 transactions,
// its alert emails sent to an SMTP capture, and the delivery worker the app would run, for a
// test to run one pass at a time (`runOnce`).
import { afterAll, beforeAll } from 'vitest';
import { outboxDeliveryWorker } from '../features/alerts/alert-delivery';
import { createEmailSender } from '../platform/notify/email-sender';
import { createWebhookSender } from '../platform/notify/webhook-sender';
import { silentLogger } from './audit-cluster';
import { startTestApp, type TestApp } from './harness';
import { CAPTURED_FROM, captureDelivery, startSmtpCapture } from './smtp-capture';

/**
 * The outbox worker of `t`, its email sent to the capture at `smtpUrl` as `captureDelivery`
 * sets the app's; `teamRecipients` are the people who may be alerted.
 */
export function captureWorker(t: TestApp, smtpUrl: string, teamRecipients: () => string[]) {
  const { maxAttempts, retryBaseMs, pollMs } = captureDelivery(smtpUrl);
  return outboxDeliveryWorker({
    alerts: () => t.stores.alerts(),
    email: createEmailSender({
      smtp: smtpUrl,
      from: CAPTURED_FROM,
      publicOrigin: t.config.publicOrigin,
    }),
    webhooks: createWebhookSender({ publicOrigin: t.config.publicOrigin }),
    webhookPolicy: {},
    teamRecipients,
    clock: t.clock,
    logger: silentLogger,
    settings: { maxAttempts, retryBaseMs, pollMs },
  });
}

/**
 * The app and its SMTP capture for the file's tests (started before them, closed after), each
 * person sent at most `emailsPerHour` alert emails an hour, the rest folded into their digest.
 */
export function appWithMailCapture(emailsPerHour: number) {
  const started: { t?: TestApp; smtp?: Awaited<ReturnType<typeof startSmtpCapture>> } = {};
  beforeAll(async () => {
    started.smtp = await startSmtpCapture();
    started.t = await startTestApp({
      sim: { transactions: 400 },
      env: {
        alertDelivery: captureDelivery(started.smtp.url),
        alertLimits: { rulesPerPerson: 50, emailsPerHour },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await started.t?.close();
    await started.smtp?.close();
  });
  return started as Required<typeof started>;
}
