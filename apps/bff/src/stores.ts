// Each feature's store over the one database platform/sql opens (composition, like app.ts):
// features receive the stores they need as deps, typed by the feature that owns each.
import { systemClock } from './core/clock';
import { AlertStore, dropAlertsOf } from './features/alerts';
import { CardOwnersStore } from './features/cards';
import { ClosePolicyStore } from './features/close-policy';
import { NotesStore } from './features/notes';
import { type LeftBehind, PeopleStore, PersonSessionTable } from './features/people';
import { dropInboxOf, ReceiptInboxStore } from './features/receipt-inbox/inbox-store';
import { type SecurityPolicyStore, SqlSecurityPolicyStore } from './features/security-policy';
import { MerchantNamesStore, TransactionIndexStore } from './features/transaction-index';
import type { TotpSecretBox } from './platform/security/totp-secret-box';
import { type Database, openDatabase } from './platform/sql/open-database';
import type { SqlEngine } from './platform/sql/sql-engine';

export interface Stores {
  /** The transaction index (migration `transaction-index`). */
  index(): Promise<TransactionIndexStore>;
  /** The names admins give merchants (migration `merchant-names`). */
  merchantNames(): Promise<MerchantNamesStore>;
  /** Each card's owner and team (migration `card-owners`). */
  cardOwners(): Promise<CardOwnersStore>;
  /** Transaction notes and the chart of accounts (migrations `annotations`, `notes-named-notes`). */
  notes(): Promise<NotesStore>;
  /** The month close's policy admins set (migration `close-policy`). */
  closePolicy(): Promise<ClosePolicyStore>;
  /** Whether everyone must have a second factor (migration `security-policy`). */
  securityPolicy(): Promise<SecurityPolicyStore>;
  /** Each person's receipt inbox and forwarding address (migration `receipt-inbox`). */
  receiptInbox(): Promise<ReceiptInboxStore>;
  /** Alert rules, the alerts they raised and each person's inbox (migration `alerts`). */
  alerts(): Promise<AlertStore>;
  /** Who may sign in, invitations and the users file's import (migration `people`). */
  people(): Promise<PeopleStore>;
  /** Each person's open sessions (migration `person-sessions`). */
  personSessions(): Promise<PersonSessionTable>;
  /**
   * The engine itself, opened (and its schema made current) at its first statement: for a
   * store made before the engine opens (the people store the server hands out at start-up).
   */
  readonly sql: SqlEngine;
  /** Whether the engine is open. */
  isOpen(): boolean;
  /** Closes the engine if it was opened. */
  close(): Promise<void>;
}

/**
 * What a person removed from People takes with them, dropped in the removal's own transaction
 * (decision 0128): their receipt inbox and forwarding address, their own alert rules, their
 * copies of alerts and the alert emails not yet sent to them. Their second factors are another
 * store's (a file with one replica), dropped after it (features/people).
 */
export const personLeftBehind: LeftBehind = async (tx, email) => [
  ...(await dropInboxOf(tx, email)),
  ...(await dropAlertsOf(tx, email)),
];

/**
 * The people store as every part of the product makes it (the server, its stores, `pnpm users`):
 * over `engine`, its TOTP secrets sealed with `totpSecrets`, a person removed taking with them
 * what was theirs alone (`personLeftBehind`). One maker, so no caller forgets a part.
 */
export function peopleStoreOn(engine: SqlEngine, totpSecrets?: TotpSecretBox): PeopleStore {
  return new PeopleStore(engine, systemClock, totpSecrets, personLeftBehind);
}

/** Each store, once the engine is open and the migrations applied; a failed open is retried. */
export function storesOn(
  db: Database,
  options: { totpSecrets?: TotpSecretBox | undefined } = {},
): Stores {
  // One store per opened engine, so every caller shares its instance.
  const on = <T>(make: (engine: SqlEngine) => T) => {
    let made: { engine: SqlEngine; store: T } | undefined;
    return async () => {
      const engine = await db.whenOpen();
      if (made?.engine !== engine) made = { engine, store: make(engine) };
      return made.store;
    };
  };
  return {
    index: on((engine) => new TransactionIndexStore(engine)),
    merchantNames: on((engine) => new MerchantNamesStore(engine)),
    cardOwners: on((engine) => new CardOwnersStore(engine)),
    notes: on((engine) => new NotesStore(engine)),
    closePolicy: on((engine) => new ClosePolicyStore(engine)),
    securityPolicy: on((engine) => new SqlSecurityPolicyStore(engine)),
    receiptInbox: on((engine) => new ReceiptInboxStore(engine)),
    alerts: on((engine) => new AlertStore(engine)),
    // Without the configured key's box the people store has no TOTP secrets.
    people: on((engine) => peopleStoreOn(engine, options.totpSecrets)),
    personSessions: on((engine) => new PersonSessionTable(engine)),
    sql: db.sql,
    isOpen: () => db.isOpen(),
    close: () => db.close(),
  };
}

/** What a seed fills (`openStores`' `seed`). */
export interface SeedStores {
  notes: NotesStore;
  cardOwners: CardOwnersStore;
}

/** The database opened on first use (platform/sql's `openDatabase`) and its stores. */
export function openStores(
  options: Omit<Parameters<typeof openDatabase>[0], 'onFirstOpen'> & {
    /**
     * Run once the schema is current, before the first use (demo mode's chart of accounts and
     * its cards' owners and teams).
     */
    seed?: (stores: SeedStores) => Promise<void>;
    /** Seals the people's TOTP secrets (the configured key). */
    totpSecrets?: TotpSecretBox;
  },
): Stores {
  const { seed, totpSecrets, ...database } = options;
  const db = openDatabase({
    ...database,
    ...(seed
      ? {
          onFirstOpen: (engine: SqlEngine) =>
            seed({ notes: new NotesStore(engine), cardOwners: new CardOwnersStore(engine) }),
        }
      : {}),
  });
  return storesOn(db, { totpSecrets });
}
