// The alert delivery series, moved for real: a digest email waiting in the embedded engine's
// outbox shows as backlog; with the SMTP relay's port closed, its tries count as retrying and
// then given up, and the backlog empties; with a relay that takes mail, it counts as sent.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '../../platform/metrics/prometheus-metrics';
import { openStores, type Stores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { freePort } from '../../test/engines/free-port';
import { ManualClock } from '../../test/manual-clock';
import { parseSamples, type Sample, sampleValue } from '../../test/scrape';
import { startSmtpCapture } from '../../test/smtp-capture';
import type { AlertDeliveryWorker } from './alert-delivery';
import { createAlertDeliveryWorker } from './alert-delivery-worker';
import { foldedDigestKey } from './digest-email';

const registry = new Registry();
const metrics = createPrometheusMetrics(registry);
const clock = new ManualClock();
let index: Stores;
let worker: AlertDeliveryWorker | undefined;

beforeAll(async () => {
  index = openStores({ open: () => migratedMemoryEngine(), logger: silentLogger });
  await index.alerts();
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await index?.close();
});

const scrape = async () => parseSamples(await registry.metrics());
/** The one sample of `name` with these labels (failing when absent: 0 must be said, not implied). */
const value = (samples: Sample[], name: string, labels: Record<string, string>) => {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBe(1);
  return sampleValue(samples, name, labels);
};
const tries = (samples: Sample[], outcome: string) =>
  value(samples, 'bff_alert_deliveries_total', { channel: 'digest', outcome });

/** Scrapes until `done` holds (the worker polls in the background), at most 20 s. */
async function scrapeUntil(done: (samples: Sample[]) => boolean): Promise<Sample[]> {
  for (let i = 0; i < 400; i++) {
    const samples = await scrape();
    if (done(samples)) return samples;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the delivery series never moved');
}

/** A folded digest for `recipient`: an email of its own, with no rule or alert to set up. */
async function digestFor(recipient: string) {
  const day = new Date(clock.now() - 86_400_000).toISOString().slice(0, 10);
  const { deliveries } = await index.alerts();
  await deliveries.add(
    [
      {
        key: foldedDigestKey(day, recipient),
        alertId: null,
        ruleId: null,
        channel: 'digest',
        recipient,
      },
    ],
    new Date(clock.now()),
  );
}

/** A worker (not started yet: the backlog is read at scrape time, whether or not it runs). */
function makeWorker(smtpUrl: string): AlertDeliveryWorker {
  worker = createAlertDeliveryWorker({
    config: {
      publicOrigin: 'https://cards.example.test',
      alertDelivery: {
        smtpUrl,
        emailFrom: 'alerts@cards.example.test',
        webhook: { allowInsecure: false, allowPrivate: false },
        maxAttempts: 2,
        retryBaseMs: 100,
        pollMs: 50,
        timeoutMs: 2_000,
      },
    },
    stores: index,
    // The people the digests here go to, who may be alerted.
    teamRecipients: () => ['ops@example.test', 'finance@example.test'],
    clock,
    logger: silentLogger,
    metrics,
  });
  return worker;
}

describe('the alert delivery series', () => {
  it('start at 0 for every channel and outcome, with no backlog', async () => {
    const samples = await scrape();
    for (const channel of ['email', 'webhook', 'digest']) {
      for (const outcome of ['sent', 'retrying', 'given_up', 'not_configured']) {
        expect(value(samples, 'bff_alert_deliveries_total', { channel, outcome })).toBe(0);
      }
    }
  });

  it('with the relay unreachable: the backlog shows, the tries count as retrying then given up', async () => {
    await digestFor('ops@example.test');
    // The worker not started: the delivery waits, and ages.
    const unreachable = makeWorker(`smtp://127.0.0.1:${await freePort()}`);
    clock.advance(90_000);
    let samples = await scrape();
    expect(value(samples, 'bff_alert_deliveries_pending', { channel: 'digest' })).toBe(1);
    expect(value(samples, 'bff_alert_delivery_oldest_pending_seconds', { channel: 'digest' })).toBe(
      90,
    );
    expect(value(samples, 'bff_alert_deliveries_pending', { channel: 'email' })).toBe(0);
    expect(value(samples, 'bff_alert_delivery_oldest_pending_seconds', { channel: 'email' })).toBe(
      0,
    );

    await unreachable.start();
    samples = await scrapeUntil(
      (s) =>
        sampleValue(s, 'bff_alert_deliveries_total', { channel: 'digest', outcome: 'retrying' }) ===
        1,
    );
    expect(tries(samples, 'sent')).toBe(0);
    samples = await scrapeUntil(
      (s) =>
        sampleValue(s, 'bff_alert_deliveries_total', { channel: 'digest', outcome: 'given_up' }) ===
        1,
    );
    expect(tries(samples, 'retrying')).toBe(1);
    expect(tries(samples, 'sent')).toBe(0);
    expect(value(samples, 'bff_alert_deliveries_pending', { channel: 'digest' })).toBe(0);
    expect(value(samples, 'bff_alert_delivery_oldest_pending_seconds', { channel: 'digest' })).toBe(
      0,
    );
    await worker?.stop();
  });

  it('with a relay that takes mail, the try counts as sent and nothing is left pending', async () => {
    const smtp = await startSmtpCapture();
    try {
      await digestFor('finance@example.test');
      await makeWorker(smtp.url).start();
      const samples = await scrapeUntil(
        (s) =>
          sampleValue(s, 'bff_alert_deliveries_total', { channel: 'digest', outcome: 'sent' }) ===
          1,
      );
      expect(smtp.mails.map((m) => m.to)).toEqual([['finance@example.test']]);
      expect(tries(samples, 'given_up')).toBe(1);
      expect(value(samples, 'bff_alert_deliveries_pending', { channel: 'digest' })).toBe(0);
      await worker?.stop();
    } finally {
      await smtp.close();
    }
  });
});
