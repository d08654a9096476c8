/** How many CSV exports may walk the card service at once. */
export interface ExportCaps {
  /** At once for one signed-in person. */
  perPerson: number;
  /** At once for this BFF (or, with a shared store, for every replica together). */
  total: number;
}

export type ExportSlot =
  | {
      granted: true;
      /** Gives the slot back; safe to call more than once (only the first call counts). */
      release(): Promise<void>;
    }
  | { granted: false; full: 'person' | 'total' };

/**
 * Counts running exports against the caps. Async and keyed by person so a shared store can
 * replace the in-process count for several replicas (e.g. Redis: a sorted set of slot ids per
 * person and one for all, scored by a lease expiry that a running export renews, added and
 * counted in one script), so a replica that dies cannot hold its slots forever.
 */
export interface ExportSlots {
  /** Takes a slot for `person` when both caps allow it, or says which cap is full. */
  acquire(person: string): Promise<ExportSlot>;
}

/** In-process counts: one BFF. Checking and taking happen in one synchronous step. */
export class MemoryExportSlots implements ExportSlots {
  protected readonly byPerson = new Map<string, number>();
  protected running = 0;

  constructor(private readonly caps: ExportCaps) {}

  async acquire(person: string): Promise<ExportSlot> {
    const mine = this.byPerson.get(person) ?? 0;
    if (mine >= this.caps.perPerson) return { granted: false, full: 'person' };
    if (this.running >= this.caps.total) return { granted: false, full: 'total' };
    this.byPerson.set(person, mine + 1);
    this.running += 1;
    let held = true;
    return {
      granted: true,
      release: async () => {
        if (!held) return;
        held = false;
        this.running -= 1;
        const left = (this.byPerson.get(person) ?? 1) - 1;
        if (left > 0) this.byPerson.set(person, left);
        else this.byPerson.delete(person);
      },
    };
  }
}
