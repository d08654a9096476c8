import type { FaultOptions } from './http/faults';

export interface CardServiceOptions {
  apiKey?: string;
  seed?: number;
  subAccounts?: number;
  cards?: number;
  transactions?: number;
  months?: number;
  pageSize?: { cards?: number; transactions?: number; subAccounts?: number };
  rateLimit?: { capacity: number; refillPerSecond: number } | false;
  faults?: FaultOptions;
  now?: () => number;
  /**
   * Serves the test routes (`POST /__testing/transactions`), outside the service's contract,
   * for tests that drive a running simulator from another process. Off unless asked for.
   */
  testRoutes?: boolean;
}

export const defaults = {
  apiKey: 'demo-key',
  seed: 42,
  subAccounts: 4,
  cards: 60,
  transactions: 20_000,
  months: 18,
  pageSize: { cards: 25, transactions: 50, subAccounts: 25 },
  rateLimit: { capacity: 200, refillPerSecond: 100 },
} as const;

export const MAX_TRANSACTIONS = 5_000_000;

function count(value: number | undefined, fallback: number, name: string, min = 0, max = 1e6) {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new RangeError(`card-service-sim: ${name} must be an integer in [${min}, ${max}]`);
  }
  return v;
}

export function resolveOptions(options: CardServiceOptions) {
  const page = options.pageSize ?? {};
  return {
    apiKey: options.apiKey ?? defaults.apiKey,
    seed: (options.seed ?? defaults.seed) >>> 0,
    subAccounts: count(options.subAccounts, defaults.subAccounts, 'subAccounts', 1, 10_000),
    cards: count(options.cards, defaults.cards, 'cards', 0, 100_000),
    transactions: count(
      options.transactions,
      defaults.transactions,
      'transactions',
      0,
      MAX_TRANSACTIONS,
    ),
    months: count(options.months, defaults.months, 'months', 1, 120),
    pageSize: {
      cards: count(page.cards, defaults.pageSize.cards, 'pageSize.cards', 1, 1000),
      transactions: count(
        page.transactions,
        defaults.pageSize.transactions,
        'pageSize.transactions',
        1,
        1000,
      ),
      subAccounts: count(
        page.subAccounts,
        defaults.pageSize.subAccounts,
        'pageSize.subAccounts',
        1,
        1000,
      ),
    },
    rateLimit: options.rateLimit === undefined ? defaults.rateLimit : options.rateLimit,
    faults: options.faults ?? {},
    now: options.now ?? Date.now,
    testRoutes: options.testRoutes === true,
  };
}
