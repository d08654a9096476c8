// The backlog gauges at scrape time: one read of the outbox serves both in a scrape, and an
// outbox that cannot be read leaves them out rather than repeating old values.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseSamples } from '../../test/scrape';
import type { AlertBacklog } from './metrics';
import { createPrometheusMetrics } from './prometheus-metrics';

const backlogSamples = async (registry: Registry) =>
  parseSamples(await registry.metrics()).filter((s) => s.name.startsWith('bff_alert_deliver'));

describe('the alert backlog gauges', () => {
  it('read the outbox once a scrape, both from that read', async () => {
    const registry = new Registry();
    let reads = 0;
    createPrometheusMetrics(registry).trackAlertBacklog(async () => {
      reads++;
      await new Promise((r) => setTimeout(r, 20));
      return [{ channel: 'email', pending: reads, oldestSeconds: reads * 10 } as AlertBacklog];
    });
    for (const scrape of [1, 2]) {
      const samples = await backlogSamples(registry);
      expect(reads).toBe(scrape);
      const gauge = (name: string) => samples.find((s) => s.name === name)?.value;
      expect(gauge('bff_alert_deliveries_pending')).toBe(scrape);
      expect(gauge('bff_alert_delivery_oldest_pending_seconds')).toBe(scrape * 10);
    }
  });

  it('leave the backlog out while the outbox cannot be read, and the scrape still answers', async () => {
    const registry = new Registry();
    let failing = false;
    createPrometheusMetrics(registry).trackAlertBacklog(async () => {
      if (failing) throw new Error('the database is down');
      return [{ channel: 'webhook', pending: 3, oldestSeconds: 40 }];
    });
    const gauges = (samples: { name: string }[]) =>
      samples.filter((s) => !s.name.startsWith('bff_alert_deliveries_total')).length;
    expect(gauges(await backlogSamples(registry))).toBe(2);
    failing = true;
    expect(gauges(await backlogSamples(registry))).toBe(0);
  });
});
