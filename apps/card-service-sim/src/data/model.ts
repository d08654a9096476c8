import type { CardStatus, UtilizationPreset } from '@card-console/shared/upstream/card';
import type { TransactionStatus } from '@card-console/shared/upstream/transaction';

/** Wire shapes the simulator sends; tests check them against the shared upstream schemas. */
export interface Amount {
  amountCents: number;
}

export interface UtilizationLimit {
  preset: UtilizationPreset;
  timezone: string;
  limitAmount: Amount;
  startDate: string;
}

export interface Card {
  id: string;
  last4: string;
  name: string;
  expiryMonth: string;
  expiryYear: string;
  status: CardStatus;
  createdAt: string;
  spendingConstraint: {
    spendingRule: {
      utilizationLimit?: UtilizationLimit;
      transactionSizeLimit: { minimum: Amount; maximum: Amount };
    };
  };
}

export interface CardWithSecrets extends Card {
  pan: string;
  cvv: string;
}

export interface Transaction {
  id: string;
  subAccountId: string;
  date: string;
  createdAt: string;
  description: string;
  amountCents: number;
  status: TransactionStatus;
  referenceNumber: string;
  authorizedAt?: string;
  cardId?: string;
  merchantData?: { description: string; categoryCode: string };
  originalCurrency?: { code: string; amountCents: number; conversionRate: number };
  declineReason?: string;
}

export interface SubAccount {
  id: string;
  name: string;
  balance: Amount;
  spend: Amount;
}

export interface ListPage<T> {
  items: T[];
  metadata: { nextCursor?: string; count: number };
}
