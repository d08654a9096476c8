// For tests that must build card numbers at run time, never writing one down.
export { luhnCheckDigit } from './data/luhn';
export type { Card, CardWithSecrets, SubAccount, Transaction } from './data/model';
// Seeded data for tests and benches (generated receipts), as the simulator seeds its own.
export { mulberry32, type Rng } from './data/prng';
export type { TransactionText } from './data/transaction-store';
export type { FaultOptions, FaultStep } from './http/faults';
export {
  type LiveActivityOptions,
  minuteOfActivity,
  startLiveActivity,
} from './live/live-activity';
export type { CardServiceOptions } from './options';
export { type CardService, createCardService } from './service';
