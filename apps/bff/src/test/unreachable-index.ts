import { StoreUnavailableError } from '../platform/store-unavailable';
import type { Stores } from '../stores';

/**
 * Stores whose PostgreSQL cannot be reached: the Overview then walks the card
 * service itself, the behaviour the Overview's walk tests look at.
 */
export function unreachableIndex(): Stores {
  const unreachable = () =>
    Promise.reject(new StoreUnavailableError('postgres', 'opening the index'));
  return {
    sql: {
      kind: 'postgres',
      sharesThread: false,
      query: unreachable,
      transaction: unreachable,
      background: unreachable,
      withMigrationClient: unreachable,
      refreshStatistics: unreachable,
      close: async () => {},
    },
    index: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    merchantNames: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    cardOwners: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    notes: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    closePolicy: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    securityPolicy: () =>
      Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    receiptInbox: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    alerts: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    people: () => Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    personSessions: () =>
      Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    isOpen: () => false,
    close: async () => {},
  };
}
