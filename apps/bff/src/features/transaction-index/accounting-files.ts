// The accountant's files: what QuickBooks Online and Xero import, holding only posted rows
// (money that moved: `postsToBooks`, docs/money.md's "in an accounting file" column), each with
// its accounting category where the format can carry one, the memo, the card and the
// transaction's id as a stable reference. What each importer documents (checked 2026-11):
//
// - QuickBooks Online's bank upload ("Manually upload transactions", quickbooks.intuit.com
//   learn-support, article L0rE9OXBz): a CSV of 3 columns (Date, Description, Amount) or 4, in
//   English, at most 350 KB; "for larger uploads, shorten the date range". Guides for the same
//   upload give 1,000 lines a file. It takes no category, payee or reference: those are set
//   on its For Review tab, or by bank rules.
// - QuickBooks Online's journal-entry import ("Import journal entries", article L4tQBwbs7):
//   Journal No., Journal Date, Account Name, Description, Debits, Credits (Name when the account
//   is A/P or A/R); lines of one Journal No. form one entry and must balance; Account Name is
//   the chart's name (account numbers turned off), "Parent:Sub" for a subaccount. Its page
//   gives no row or size limit.
// - Xero's bank statement import (its CSV template; "Import a CSV bank statement file"):
//   *Date (DD/MM/YYYY), *Amount (money spent negative), Payee, Description, Reference, Cheque
//   Number; at most 1,000 statement lines a file ("split up the file"). Its precoded statement
//   adds Account code and Tax type, so a line arrives coded to the chart; a blank tax type
//   takes the account's default rate.
// Past a file's limit (ACCOUNTING_ROWS_PER_FILE) the file comes in parts, each asked for on its
// own (`part=N`), since each importer takes one CSV at a time (decision 0111).

import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { Notes } from '@card-console/shared/api/notes';
import type { ExportFormat } from '@card-console/shared/api/transaction-index';
import { centsToDollarInput } from '@card-console/shared/money';
import { postsToBooks } from '@card-console/shared/money-definition';
import { transactionStatuses } from '@card-console/shared/upstream/enums';
import { type CsvRowOptions, exportText } from '../transactions';
import type { IndexedTransaction, IndexFilter } from './index-store';

export type AccountingFormat = Exclude<ExportFormat, 'card-console'>;

/** Each file's header row, exactly as its importer documents it. */
export const ACCOUNTING_COLUMNS: Record<AccountingFormat, readonly string[]> = {
  quickbooks: ['Date', 'Description', 'Amount'],
  'quickbooks-journal': [
    'JournalNo',
    'JournalDate',
    'AccountName',
    'Debits',
    'Credits',
    'Description',
    'Name',
    'Memo',
  ],
  xero: [
    '*Date',
    '*Amount',
    'Payee',
    'Description',
    'Reference',
    'Cheque Number',
    'Account code',
    'Tax type',
  ],
};

/** The statuses that post, from the one definition (never a list of our own). */
const postedStatuses: readonly string[] = transactionStatuses.filter((status) =>
  postsToBooks({ status }),
);

/** `filter` narrowed to posted rows: the statuses it asks for that post, or all that do. */
export function postedOnly(filter: IndexFilter): IndexFilter {
  const statuses = filter.statuses
    ? filter.statuses.filter((s) => postedStatuses.includes(s))
    : postedStatuses;
  return { ...filter, statuses };
}

/** QuickBooks Online's chart has these by default: where a row booked to no category lands. */
const UNCATEGORIZED = { out: 'Uncategorized Expense', in: 'Uncategorized Income' } as const;

/** What a row's lines are written from besides the row itself. */
export interface AccountingContext {
  notes: Notes | undefined;
  categories: ReadonlyMap<string, AccountingCategory>;
  /** The row's sub account's name: the bank or card account its money sits in, in the books. */
  subAccountName: string | undefined;
  /** The row's merchant by name (`merchants.ts`, an admin's name): Xero's payee. */
  merchantName?: string | undefined;
  format: CsvRowOptions;
}

/** A posted row as its file's lines: one for a statement, two (a balanced entry) for a journal. */
export function accountingLines(
  layout: AccountingFormat,
  t: IndexedTransaction,
  { notes, categories, subAccountName, merchantName, format }: AccountingContext,
): string[][] {
  const [year, month, day] = format.times.format(t.at).slice(0, 10).split('-');
  const amount = centsToDollarInput(t.amountCents);
  const payee = t.merchant ?? t.description;
  const memo = notes?.memo.replace(/\s+/g, ' ') ?? '';
  const category = notes?.categoryId ? categories.get(notes.categoryId) : undefined;
  const card = cardText(t, format);
  // Each cell as written masked (`exportText`): the memo's spaces collapsed, or the payee and
  // the memo joined by " - ", can make one card number of digit groups.
  if (layout === 'quickbooks') {
    const description = memo ? `${payee} - ${memo}` : payee;
    return [[`${month}/${day}/${year}`, exportText(description), amount]];
  }
  if (layout === 'xero') {
    const description = [memo || t.description, card].filter(Boolean).join(' · ');
    return [
      [
        `${day}/${month}/${year}`,
        amount,
        // Xero matches a payee to a contact: the merchant's name, however the network wrote it.
        exportText(merchantName ?? payee),
        exportText(description),
        exportText(t.id),
        '',
        exportText(category?.code ?? ''),
        '',
      ],
    ];
  }
  // A journal entry per row, numbered by its id (QuickBooks keeps 21 characters of a number;
  // the service's ids are 11): money out debits the category and credits the account it left,
  // money in the other way round.
  const out = t.amountCents < 0;
  const size = centsToDollarInput(Math.abs(t.amountCents));
  const date = `${month}/${day}/${year}`;
  const description = exportText(memo ? `${payee} - ${memo}` : payee);
  const reference = exportText(
    [card, t.referenceNumber ? `ref ${t.referenceNumber}` : ''].filter(Boolean).join(' · '),
  );
  const line = (account: string, debit: boolean) => [
    exportText(t.id),
    date,
    exportText(account),
    debit ? size : '',
    debit ? '' : size,
    description,
    // Name must be one of the company's customers or suppliers: left for the accountant.
    '',
    reference,
  ];
  const categoryAccount = category?.name ?? (out ? UNCATEGORIZED.out : UNCATEGORIZED.in);
  const bankAccount = subAccountName ?? t.subAccountId;
  return [line(categoryAccount, out), line(bankAccount, !out)];
}

/** The card a row was paid with, as the files name it ("Ops •••• 4242"), or nothing. */
function cardText(t: IndexedTransaction, format: CsvRowOptions): string {
  if (!t.cardId) return '';
  const label = format.cards?.label(t.cardId);
  if (!label) return `card ${t.cardId}`;
  return label.last4 ? `card ${label.name} •••• ${label.last4}` : `card ${label.name}`;
}
