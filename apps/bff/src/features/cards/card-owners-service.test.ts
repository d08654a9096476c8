import type { Card } from '@card-console/shared/api/cards';
import { describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../platform/store-unavailable';
import { createCardOwnersService } from './card-owners-service';
import type { CardOwnersStore } from './card-owners-store';

const cards = [{ id: 'c1', name: 'One' }] as unknown as Card[];
const serviceWith = (cardOwners: () => Promise<CardOwnersStore>) => {
  const warn = vi.fn();
  const service = createCardOwnersService({
    stores: { cardOwners },
    logger: { warn } as never,
    upstream: {} as never,
    audit: {} as never,
    clock: { now: () => 0 },
  });
  return { service, warn };
};

describe("the cards' owners when the database is out of reach", () => {
  it('still gives the cards, their ownership marked unknown (never "none"), and says so in the log', async () => {
    const { service, warn } = serviceWith(() =>
      Promise.reject(new StoreUnavailableError('postgres', 'opening the index')),
    );
    expect(await service.withOwnership(cards)).toEqual([
      { id: 'c1', name: 'One', ownershipUnavailable: true },
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('any other failure is not hidden', async () => {
    const { service } = serviceWith(() => Promise.reject(new Error('a bug')));
    await expect(service.withOwnership(cards)).rejects.toThrow('a bug');
  });
});
