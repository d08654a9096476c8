import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type {
  AlertBacklog,
  AlertDeliveryChannel,
  AlertDeliveryOutcome,
  IndexSyncOutcome,
  Metrics,
} from './metrics';

type BackgroundWorkMetrics = Pick<
  Metrics,
  | 'indexSyncEnded'
  | 'indexSyncPage'
  | 'trackIndexSyncLag'
  | 'trackIndexSyncProgress'
  | 'alertDelivery'
  | 'trackAlertBacklog'
>;

const SYNC_OUTCOMES: readonly IndexSyncOutcome[] = ['synced', 'failed'];
const CHANNELS: readonly AlertDeliveryChannel[] = ['email', 'webhook', 'digest'];
const DELIVERY_OUTCOMES: readonly AlertDeliveryOutcome[] = [
  'sent',
  'retrying',
  'given_up',
  'not_configured',
];
/** Seconds: a refresh of the open days is a few pages, a first sync minutes (30 at most). */
const SYNC_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800];

/**
 * The work no request waits for: the transaction index's syncs and the alerts' deliveries. No
 * label names a sub account, a person or a target: the channel and the outcome are fixed sets,
 * every pair at 0 from the start (an alert's `increase()` misses a series' first sample).
 */
export function createBackgroundWorkSeries(registry: Registry): BackgroundWorkMetrics {
  const registers = [registry];
  const syncs = new Counter({
    name: 'bff_index_syncs_total',
    help: 'Syncs of a sub account into the transaction index, by outcome (synced or failed).',
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of SYNC_OUTCOMES) syncs.inc({ outcome }, 0);
  const syncSeconds = new Histogram({
    name: 'bff_index_sync_duration_seconds',
    help: 'Time of one sync of a sub account into the transaction index, however it ended.',
    buckets: SYNC_BUCKETS,
    registers,
  });
  const pages = new Counter({
    name: 'bff_index_sync_pages_total',
    help: 'Pages of transactions the index syncs read from the card service.',
    registers,
  });
  let lag: (() => number) | undefined;
  new Gauge({
    name: 'bff_index_sync_lag_seconds',
    help: 'Seconds the longest-owed index sync on this replica has been owed: since a read first asked for it after its last success (0: none owed).',
    registers,
    collect() {
      this.set(lag ? lag() : 0);
    },
  });

  let progress: (() => { daysLeft: number; rows: number }) | undefined;
  new Gauge({
    name: 'bff_index_sync_dates_left',
    help: 'Dates (UTC days of history) the index syncs running on this replica have still to read (0: none runs).',
    registers,
    collect() {
      this.set(progress ? progress().daysLeft : 0);
    },
  });
  new Gauge({
    name: 'bff_index_sync_rows_read',
    help: 'Rows the index syncs running on this replica have read so far (0: none runs).',
    registers,
    collect() {
      this.set(progress ? progress().rows : 0);
    },
  });

  const deliveries = new Counter({
    name: 'bff_alert_deliveries_total',
    help: 'Tries of alert deliveries, by channel and outcome (sent, retrying, given_up, not_configured).',
    labelNames: ['channel', 'outcome'],
    registers,
  });
  for (const channel of CHANNELS) {
    for (const outcome of DELIVERY_OUTCOMES) deliveries.inc({ channel, outcome }, 0);
  }
  let backlog: (() => Promise<readonly AlertBacklog[] | undefined>) | undefined;
  const read = async () => {
    try {
      return backlog ? await backlog() : undefined;
    } catch {
      // The outbox unreadable (PostgreSQL down) is the readiness series' to say; the scrape
      // still answers, without backlog values rather than with old ones.
      return undefined;
    }
  };
  // Both gauges from one read per scrape: the registry asks every metric to collect in one go,
  // so the second to ask joins the read the first started, which is forgotten once it ends.
  let inFlight: Promise<readonly AlertBacklog[] | undefined> | undefined;
  const readOnce = () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  new Gauge({
    name: 'bff_alert_deliveries_pending',
    help: 'Alert deliveries neither sent nor given up (the outbox all replicas share), by channel.',
    labelNames: ['channel'],
    registers,
    async collect() {
      const values = await readOnce();
      this.reset();
      for (const b of values ?? []) this.set({ channel: b.channel }, b.pending);
    },
  });
  new Gauge({
    name: 'bff_alert_delivery_oldest_pending_seconds',
    help: 'Seconds since the oldest pending alert delivery was written, by channel (0: none pending).',
    labelNames: ['channel'],
    registers,
    async collect() {
      const values = await readOnce();
      this.reset();
      for (const b of values ?? []) this.set({ channel: b.channel }, b.oldestSeconds);
    },
  });

  return {
    indexSyncEnded(outcome, seconds) {
      syncs.inc({ outcome });
      syncSeconds.observe(seconds);
    },
    indexSyncPage: () => pages.inc(),
    trackIndexSyncLag: (seconds) => {
      lag = seconds;
    },
    trackIndexSyncProgress: (read) => {
      progress = read;
    },
    alertDelivery: (channel, outcome) => deliveries.inc({ channel, outcome }),
    trackAlertBacklog: (reader) => {
      backlog = reader;
    },
  };
}
