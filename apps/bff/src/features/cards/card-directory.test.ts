import { setImmediate as tick } from 'node:timers/promises';
import type { UpstreamCard } from '@card-console/shared/upstream/card';
import type { ListEnvelope } from '@card-console/shared/upstream/common';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import { createLogger } from '../../platform/logger';
import { lineSink } from '../../test/capture';
import { ManualClock } from '../../test/manual-clock';
import { type CardDirectoryOptions, createCardDirectory } from './card-directory';

const card = (i: number, name = `Card ${i}`): UpstreamCard => ({
  id: `card_${i}`,
  last4: String(1000 + i).slice(-4),
  name,
  status: 'active',
});

/** A card list served two cards a page, each page answered when the test lets it. */
function fakeCards(initial: UpstreamCard[]) {
  let cards = initial;
  const walks: string[] = [];
  let pages = 0;
  let failNext = 0;
  let held: (() => void)[] | undefined;
  const listPage: CardDirectoryOptions['listPage'] = async (cursor, requestId) => {
    if (cursor === undefined) walks.push(requestId);
    pages += 1;
    if (held) await new Promise<void>((resolve) => held?.push(resolve));
    else await tick();
    if (failNext > 0) {
      failNext -= 1;
      throw new AppError(503, 'upstream_unavailable', 'down');
    }
    const at = cursor === undefined ? 0 : Number(cursor);
    const items = cards.slice(at, at + 2);
    const more = at + 2 < cards.length;
    return {
      items,
      metadata: more ? { nextCursor: String(at + 2) } : {},
    } satisfies ListEnvelope<UpstreamCard>;
  };
  return {
    listPage,
    walks: () => walks.length,
    pages: () => pages,
    setCards: (next: UpstreamCard[]) => {
      cards = next;
    },
    failNext: (n: number) => {
      failNext = n;
    },
    /** Pages wait until `release` from now on. */
    hold: () => {
      held = [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
  };
}

function setup(
  cards: UpstreamCard[],
  options: Partial<CardDirectoryOptions> = {},
): {
  fake: ReturnType<typeof fakeCards>;
  clock: ManualClock;
  logs: string[];
  directory: ReturnType<typeof createCardDirectory>;
} {
  const fake = fakeCards(cards);
  const clock = new ManualClock(Date.UTC(2026, 10, 3));
  const logs: string[] = [];
  const directory = createCardDirectory({
    listPage: fake.listPage,
    clock,
    logger: createLogger('debug', lineSink(logs)),
    ...options,
  });
  return { fake, clock, logs, directory };
}

/** Lets a background walk run to its end. */
async function settle() {
  for (let i = 0; i < 20; i++) await tick();
}

const five = [1, 2, 3, 4, 5].map((i) => card(i));

describe('card directory', () => {
  it('names every card of every page once filled', async () => {
    const { directory, fake } = setup(five);
    await directory.ready();
    for (const c of five) expect(directory.label(c.id)).toEqual({ name: c.name, last4: c.last4 });
    expect(fake.pages()).toBe(3);
  });

  it('many reads at once share one walk of the card list', async () => {
    const { directory, fake } = setup(five);
    await Promise.all(Array.from({ length: 50 }, () => directory.ready()));
    expect(fake.walks()).toBe(1);
    expect(fake.pages()).toBe(3);
    // Filled and fresh: later reads cost the card service nothing.
    await Promise.all(Array.from({ length: 50 }, () => directory.ready()));
    expect(fake.walks()).toBe(1);
  });

  it('refreshes in the background once older than its bound, serving the old names meanwhile', async () => {
    const { directory, fake, clock } = setup(five, { maxAgeMs: 60_000 });
    await directory.ready();
    fake.setCards([card(1, 'Renamed'), ...five.slice(1)]);

    clock.advance(59_999);
    await directory.ready();
    expect(fake.walks()).toBe(1);

    clock.advance(1);
    fake.hold();
    // The stale read is not held up by the walk it starts.
    await directory.ready();
    expect(fake.walks()).toBe(2);
    expect(directory.label('card_1')?.name).toBe('Card 1');
    // More stale reads while it runs join it.
    await Promise.all([directory.ready(), directory.ready()]);
    expect(fake.walks()).toBe(2);
    fake.release();
    await settle();
    expect(directory.label('card_1')?.name).toBe('Renamed');
  });

  it('a failed refresh keeps the names it had, never fails a read, and waits before trying again', async () => {
    const { directory, fake, clock, logs } = setup(five, {
      maxAgeMs: 60_000,
      failureRetryGapMs: 10_000,
    });
    await directory.ready();
    clock.advance(60_000);
    fake.failNext(1);
    await expect(directory.ready()).resolves.toBeUndefined();
    await settle();
    expect(fake.walks()).toBe(2);
    expect(directory.label('card_3')).toEqual({ name: 'Card 3', last4: '1003' });
    expect(logs.some((l) => l.includes('card directory refresh failed'))).toBe(true);
    expect(logs.join('\n')).toContain('"code":"upstream_unavailable"');

    // Within the retry gap: no new walk, however many reads.
    clock.advance(9_999);
    await directory.ready();
    await settle();
    expect(fake.walks()).toBe(2);
    clock.advance(1);
    await directory.ready();
    await settle();
    expect(fake.walks()).toBe(3);
  });

  it('a walk failing half-way keeps the old map whole, not a part of the new one', async () => {
    const { directory, fake, clock } = setup(five);
    await directory.ready();
    fake.setCards([card(1, 'New 1'), card(2, 'New 2'), card(3, 'New 3')]);
    clock.advance(60_000);
    fake.hold();
    await directory.ready();
    fake.release(); // page 1 answers
    await tick();
    fake.failNext(1); // page 2 fails
    await settle();
    expect(directory.label('card_1')?.name).toBe('Card 1');
    expect(directory.label('card_5')?.name).toBe('Card 5');
  });

  it('an unknown card starts one refresh, not one per row, and not again within its gap', async () => {
    const { directory, fake, clock } = setup(five, { unknownRefreshGapMs: 15_000 });
    await directory.ready();
    fake.setCards([...five, card(6)]);

    // Just filled: an unknown id is more likely a card the list does not have.
    expect(directory.label('card_6')).toBeUndefined();
    await settle();
    expect(fake.walks()).toBe(1);

    clock.advance(15_000);
    for (let row = 0; row < 200; row++) expect(directory.label('card_6')).toBeUndefined();
    for (let row = 0; row < 200; row++) directory.label(`card_gone_${row}`);
    await settle();
    expect(fake.walks()).toBe(2);
    expect(directory.label('card_6')).toEqual({ name: 'Card 6', last4: '1006' });

    // A card the service does not list at all: at most one walk per gap.
    clock.advance(14_999);
    for (let row = 0; row < 100; row++) directory.label('card_gone');
    await settle();
    expect(fake.walks()).toBe(2);
    clock.advance(1);
    for (let row = 0; row < 100; row++) directory.label('card_gone');
    await settle();
    expect(fake.walks()).toBe(3);
  });

  it('a read waits for the first fill at most its bound, and is then served what there is', async () => {
    const { directory, fake } = setup(five, { firstFillWaitMs: 30 });
    fake.hold();
    const started = Date.now();
    await directory.ready();
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(directory.label('card_1')).toBeUndefined();
    // Still one walk, which then fills the directory for later reads.
    await directory.ready();
    expect(fake.walks()).toBe(1);
    fake.release();
    await settle();
    expect(directory.label('card_1')?.name).toBe('Card 1');
  });

  it('a first fill that fails leaves reads unnamed, then is tried again after its gap', async () => {
    const { directory, fake, clock } = setup(five, { failureRetryGapMs: 10_000 });
    fake.failNext(1);
    await directory.ready();
    expect(directory.label('card_1')).toBeUndefined();
    await directory.ready();
    expect(fake.walks()).toBe(1);
    clock.advance(10_000);
    await directory.ready();
    expect(fake.walks()).toBe(2);
    expect(directory.label('card_1')?.name).toBe('Card 1');
  });

  it('a rename remembered while a walk runs outlasts that walk', async () => {
    const { directory, fake, clock } = setup(five);
    await directory.ready();
    clock.advance(60_000);
    fake.hold();
    await directory.ready(); // a walk starts; its pages still hold the old name
    directory.remember({ ...card(1), name: 'Travel desk' });
    expect(directory.label('card_1')).toEqual({ name: 'Travel desk', last4: '1001' });
    fake.release();
    await settle();
    expect(fake.walks()).toBe(2);
    expect(directory.label('card_1')).toEqual({ name: 'Travel desk', last4: '1001' });
  });

  it("keeps each card's utilisation limit, a changed limit remembered over a walk's older pages", async () => {
    const weekly = (amountCents: number) => ({
      spendingRule: {
        utilizationLimit: {
          preset: 'weekly' as const,
          limitAmount: { amountCents, currency: 'USD' },
          timezone: 'America/New_York',
        },
      },
    });
    const limited = { ...card(1), spendingConstraint: weekly(50_000) };
    const { directory, fake, clock } = setup([limited, card(2)]);
    await directory.ready();
    expect(directory.utilizationLimit('card_1')).toEqual({
      known: true,
      limit: limited.spendingConstraint.spendingRule.utilizationLimit,
    });
    expect(directory.utilizationLimit('card_2')).toEqual({ known: true });
    expect(directory.utilizationLimit('card_9')).toEqual({ known: false });
    clock.advance(60_000);
    fake.hold();
    await directory.ready();
    directory.remember({ ...limited, spendingConstraint: weekly(80_000) });
    fake.release();
    await settle();
    expect(directory.utilizationLimit('card_1').limit?.limitAmount?.amountCents).toBe(80_000);
    expect(directory.label('card_1')).toEqual({ name: limited.name, last4: limited.last4 });
  });

  it('stops a walk whose cursor does not move, keeping the old names', async () => {
    const fake = fakeCards(five);
    let stuck = false;
    let stuckPages = 0;
    const clock = new ManualClock();
    const directory = createCardDirectory({
      listPage: async (cursor, requestId) => {
        if (!stuck) return fake.listPage(cursor, requestId);
        stuckPages += 1;
        return { items: [card(9)], metadata: { nextCursor: 'same' } };
      },
      clock,
      logger: createLogger('debug', lineSink([])),
    });
    await directory.ready();
    stuck = true;
    clock.advance(60_000);
    await directory.ready();
    await settle();
    expect(stuckPages).toBe(2);
    expect(directory.label('card_9')).toBeUndefined();
    expect(directory.label('card_1')?.name).toBe('Card 1');
  });

  it('a card list that never ends fails its walk at the page cap, keeping the names it had', async () => {
    const fake = fakeCards(five);
    let endless = false;
    let endlessPages = 0;
    const clock = new ManualClock();
    const logs: string[] = [];
    const directory = createCardDirectory({
      listPage: async (cursor, requestId) => {
        if (!endless) return fake.listPage(cursor, requestId);
        endlessPages += 1;
        const at = cursor === undefined ? 0 : Number(cursor);
        return { items: [card(100 + at)], metadata: { nextCursor: String(at + 1) } };
      },
      clock,
      logger: createLogger('debug', lineSink(logs)),
      maxPages: 30,
    });
    await directory.ready();
    endless = true;
    clock.advance(60_000);
    await directory.ready();
    await settle();
    for (let i = 0; i < 40; i++) await tick();
    expect(endlessPages).toBe(30);
    expect(directory.label('card_100')).toBeUndefined();
    expect(directory.label('card_1')?.name).toBe('Card 1');
    expect(logs.join('\n')).toContain('"code":"upstream_bad_gateway"');
  });

  it('a walk past its time budget fails, keeping the names it had', async () => {
    const fake = fakeCards(five);
    const clock = new ManualClock();
    const logs: string[] = [];
    let slow = false;
    const directory = createCardDirectory({
      listPage: async (cursor, requestId) => {
        // Each page of the slow walk takes the clock a minute on.
        if (slow) clock.advance(60_000);
        return fake.listPage(cursor, requestId);
      },
      clock,
      logger: createLogger('debug', lineSink(logs)),
      maxWalkMs: 90_000,
    });
    await directory.ready();
    fake.setCards([card(1, 'Renamed'), ...five.slice(1)]);
    slow = true;
    clock.advance(60_000);
    await directory.ready();
    await settle();
    expect(directory.label('card_1')?.name).toBe('Card 1');
    expect(logs.join('\n')).toContain('"code":"upstream_timeout"');
  });
});
