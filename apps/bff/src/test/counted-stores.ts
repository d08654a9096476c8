// The in-memory export slots and receipts with what a test counts (slots held, people with an
// entry, receipts kept): subclasses here, so the product classes carry no member for tests.
import { MemoryExportReceipts } from '../platform/security/export-receipts';
import { MemoryExportSlots } from '../platform/security/export-slots';

export class CountedExportSlots extends MemoryExportSlots {
  /** Slots held now. */
  get held(): number {
    return this.running;
  }

  /** People with an entry (only those holding a slot should have one). */
  get people(): number {
    return this.byPerson.size;
  }
}

export class CountedExportReceipts extends MemoryExportReceipts {
  /** Receipts held now, lapsed ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }
}
