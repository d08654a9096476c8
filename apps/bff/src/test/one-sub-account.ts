// One sub account's card service that follows the contract (its one card and the rows a test
// writes), started with a PostgreSQL server for a test file, and the two engines a test app
// opens its stores on: what the index's figure tests over HTTP set up.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { postgresEngine } from '../platform/sql/sql-engine';
import { openStores } from '../stores';
import { silentLogger } from './audit-cluster';
import type { ContractWorld } from './contract-answers';
import { type ContractCardService, startContractCardService } from './contract-card-service';
import { migratedMemoryEngine } from './engines/embedded';
import { type PostgresEngine, startPostgres } from './engines/postgres';
import { type ManualClock, startTestApp } from './harness';

/** A row of the sub account: a card's (at 'Shop') or, without `card`, a payment's or transfer's. */
export interface AccountRow {
  id: string;
  status: string;
  amountCents: number;
  /** ISO 8601. */
  date: string;
  description: string;
  card: boolean;
  /** The merchant's category code of a card's row; 5812 (restaurants) unless given. */
  categoryCode?: string;
}

/** Sub account `sub_1` and card `card_1` (•••• 4242) with `rows`, `perPage` rows a page. */
export function oneSubAccountWorld(rows: readonly AccountRow[], perPage: number): ContractWorld {
  return {
    subAccounts: [{ id: 'sub_1', name: 'Operating' }],
    cards: [{ id: 'card_1', last4: '4242', name: 'Travel', status: 'active' }],
    transactions: rows.map((r) => ({
      subAccountId: 'sub_1',
      item: {
        id: r.id,
        date: r.date,
        description: r.description,
        amountCents: r.amountCents,
        status: r.status,
        referenceNumber: `ref ${r.id}`,
        ...(r.card
          ? {
              cardId: 'card_1',
              merchantData: { description: 'Shop', categoryCode: r.categoryCode ?? '5812' },
            }
          : {}),
      },
    })),
    pageSize: { subAccounts: 5, cards: 5, transactions: perPage },
    cursors: ['next'],
    withCount: false,
  };
}

/**
 * A contract card service (API key `apiKey`) and a PostgreSQL server, started before the file's
 * tests and stopped after them; `engines` opens an embedded engine, or database `database` of
 * that server, for a test app's stores, and `startApp` starts the app on one, reading the service.
 */
export function contractServiceOnEngines(apiKey: string, database: string) {
  let service: ContractCardService | undefined;
  let postgres: PostgresEngine | undefined;
  beforeAll(async () => {
    [service, postgres] = await Promise.all([startContractCardService(apiKey), startPostgres()]);
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await postgres?.destroy();
  });
  const engines = {
    embedded: async () => migratedMemoryEngine(),
    postgres: async () => {
      if (!postgres) throw new Error('PostgreSQL starts before the tests');
      return postgresEngine(
        new pg.Pool({ connectionString: await postgres.createDatabase(database), max: 4 }),
      );
    },
  };
  const started = () => {
    if (!service) throw new Error('the contract card service starts before the tests');
    return service;
  };
  return {
    get service(): ContractCardService {
      return started();
    },
    engines,
    startApp: (engine: keyof typeof engines, clock: ManualClock) =>
      startTestApp({
        upstream: { url: started().url, apiKey: started().apiKey },
        clock,
        env: { sessionSecret: randomBytes(32).toString('hex') },
        stores: openStores({ open: engines[engine], logger: silentLogger }),
      }),
  };
}
