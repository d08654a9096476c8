import { CardStore } from './card-store';
import { generateCards } from './generate-cards';
import { generateMerchants } from './merchants';
import { SubAccountStore } from './sub-account-store';
import { TransactionStore } from './transaction-store';

export interface DatasetOptions {
  seed: number;
  subAccounts: number;
  cards: number;
  transactions: number;
  months: number;
  nowMs: number;
}

export interface Dataset {
  subAccounts: SubAccountStore;
  cards: CardStore;
  transactions: TransactionStore;
}

/** Builds the whole deterministic data set for one seed and clock reading. */
export function buildDataset(options: DatasetOptions): Dataset {
  const { seed, nowMs } = options;
  const windowStart = new Date(nowMs);
  windowStart.setUTCMonth(windowStart.getUTCMonth() - options.months);
  const windowStartMs = windowStart.getTime();
  const subAccounts = new SubAccountStore(seed, options.subAccounts);
  const cards = new CardStore(
    generateCards(seed, options.cards, options.subAccounts, windowStartMs),
  );
  const merchants = generateMerchants(seed, 240);
  const transactions = new TransactionStore(
    {
      seed,
      count: options.transactions,
      subAccounts: options.subAccounts,
      cards: options.cards,
      cardsBySub: cards.cardsBySub(options.subAccounts),
      merchants: merchants.length,
      windowStartMs,
      nowMs,
    },
    {
      seed,
      merchants,
      subAccountId: (i) => subAccounts.idAt(i),
      cardId: (i) => cards.idAt(i),
      cardSubIndex: (i) => cards.subIndexAt(i),
    },
  );
  for (let i = 0; i < options.subAccounts; i++) {
    const { balanceCents, spendCents } = transactions.figures(i);
    subAccounts.setFigures(i, balanceCents, spendCents);
  }
  return { subAccounts, cards, transactions };
}
