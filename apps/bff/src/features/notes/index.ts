// What other features may use of the notes feature: its store, which the composition root
// (src/stores.ts) makes over the database platform/sql opens, and how the chart of accounts'
// feature (which keeps its categories and merchant rules in the same store) audits and answers
// the store's refusals; and what the receipt inbox shares with a transaction's receipts (one
// file check, one way to name, refuse and attach a receipt), so an inbox file is a receipt alike.
export {
  addReceiptIn,
  CategoryCodeTakenError,
  NotesConflictError,
  NotesStore,
  TooManyReceiptsError,
} from './notes-store';
export { inspectReceipt, safeFileName, sendReceipt } from './receipt-file';
export {
  FILE_NAME_HEADER,
  fileNameOf,
  refusal,
  refuseCardNumber,
  translateReceiptError,
} from './receipts-service';
export { categoriesIn, categoryText, storeProblem } from './store-problems';
