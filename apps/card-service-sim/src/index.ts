export type { Card, CardWithSecrets, SubAccount, Transaction } from './data/model';
export type { FaultOptions, FaultStep } from './http/faults';
export type { CardServiceOptions } from './options';
export { type CardService, createCardService } from './service';
