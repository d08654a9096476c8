import type { Card } from '@card-console/shared/api/cards';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import type { Who } from '../../platform/sessions/who';
import type { UpstreamClient } from '../../upstream/client';
import type { CardDirectory } from './card-directory';
import { cardsMatching, DIRECTORY_PAGE, directoryPage, directoryPosition } from './card-listing';
import { createCardsService } from './cards-service';

const card = (
  id: string,
  name: string,
  last4: string,
  status: Card['status'] = 'active',
): Card => ({
  id,
  name,
  last4,
  status,
  transactionSizeLimit: {},
});

const CARDS = [
  card('a', 'Café Zoë (travel)', '6707'),
  card('b', 'Ada Lovelace', '1670', 'paused'),
  card('c', 'Room 42 supplies', '9999'),
];
const found = (q: string, status?: Card['status']) =>
  cardsMatching(CARDS, { q, status }).map((c) => c.id);

describe('what a search finds', () => {
  it('a last four, typed or copied from the masked number, and part of one', () => {
    expect(found('6707')).toEqual(['a']);
    expect(found('•••• 6707')).toEqual(['a']);
    expect(found('**6707')).toEqual(['a']);
    expect(found('670')).toEqual(['a', 'b']);
  });

  it('part of a name in any case, accents or none; digits in a name count too', () => {
    expect(found('cafe zoe')).toEqual(['a']);
    expect(found('LOVE')).toEqual(['b']);
    expect(found('ZOË')).toEqual(['a']);
    expect(found('42')).toEqual(['c']);
    expect(found('nobody')).toEqual([]);
  });

  it('only among the status asked', () => {
    expect(found('670', 'active')).toEqual(['a']);
  });
});

describe("the directory list's pages", () => {
  it('25 a page; its cursor says where the next starts, and the last page has none', () => {
    const many = Array.from({ length: 60 }, (_, n) => card(`c${n}`, `Card ${n}`, '0000'));
    const first = directoryPage(many, directoryPosition(undefined));
    expect(first.items).toHaveLength(DIRECTORY_PAGE);
    const second = directoryPage(many, directoryPosition(first.nextCursor));
    expect(second.items[0]?.id).toBe('c25');
    const third = directoryPage(many, directoryPosition(second.nextCursor));
    expect(third.items.map((c) => c.id)).toEqual(many.slice(50).map((c) => c.id));
    expect(third.nextCursor).toBeUndefined();
  });

  it("any other cursor, the card service's included, is a 400", () => {
    for (const cursor of ['', 'at:0', 'at:-1', 'at:1e3', 'eyJvZmZzZXQiOjI1fQ', 'at:25 ']) {
      expect(() => directoryPosition(cursor), cursor).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_query' }),
      );
    }
  });
});

describe('a search before the card directory was ever filled', () => {
  it('is a 503 to try again, never "no card matches"', async () => {
    const directory = {
      ready: async () => {},
      filled: () => false,
      cards: () => [],
    } as unknown as CardDirectory;
    const service = createCardsService({
      upstream: {} as UpstreamClient,
      cardDirectory: directory,
      cardsMoney: async () => ({ cards: [], freshness: { syncing: false, days: 0, daysDone: 0 } }),
      owners: { cardsOf: async () => undefined, withOwnership: async (cards) => cards },
    });
    const who = { requestId: 'r', actor: { role: 'finance' } } as unknown as Who;
    const refused = await service.list(who, { q: '6707' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 503, retryAfterSeconds: 2 });
  });
});
