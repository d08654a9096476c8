/** How many exports may run at once, and for how long one may hold its slot. */
export interface ExportCaps {
  /** At once for one signed-in person. */
  perPerson: number;
  /** At once for this BFF (or, with a shared store, for every replica together). */
  total: number;
  /** How long a slot is held at most, released or not (`EXPORT_SLOT_LIFETIME_MS` by default). */
  lifetimeMs?: number;
}

/**
 * An export's longest run: the exports' own walks end by then (`WALK_LIMITS.export`, 30 min), so
 * a slot still held past it belongs to an export that is stuck, not one that is working.
 */
export const EXPORT_SLOT_LIFETIME_MS = 30 * 60_000;

export type ExportSlot =
  | {
      granted: true;
      /** Gives the slot back; safe to call more than once (only the first call counts). */
      release(): Promise<void>;
      /** Aborted when the slot's lifetime ran out: the store has taken it back. */
      expired: AbortSignal;
    }
  | { granted: false; full: 'person' | 'total' };

/**
 * Counts running exports against the caps. Async and keyed by person so a shared store can
 * replace the in-process count for several replicas (PostgreSQL's, sql-export-slots.ts: a
 * row per running export, counted and taken in one transaction, each with its lifetime's end),
 * so a replica that dies cannot hold its slots forever. Every slot has
 * an absolute lifetime: whatever its holder does, it is free again after `lifetimeMs`.
 */
export interface ExportSlots {
  /** Takes a slot for `person` when both caps allow it, or says which cap is full. */
  acquire(person: string): Promise<ExportSlot>;
}

/**
 * A granted slot's release, once only, and its lifetime: after `lifetimeMs` the slot is given
 * back and `expired` aborted. `giveBack` runs once, whichever comes first.
 */
export function heldSlot(
  lifetimeMs: number,
  giveBack: () => Promise<void>,
): Extract<ExportSlot, { granted: true }> {
  const expiry = new AbortController();
  let held = true;
  const release = async () => {
    if (!held) return;
    held = false;
    clearTimeout(lifetime);
    await giveBack();
  };
  const lifetime = setTimeout(() => {
    // Given back first: whoever learns of the expiry finds the slot free.
    void release().finally(() => expiry.abort());
  }, lifetimeMs);
  lifetime.unref(); // never what keeps a stopping process alive
  return { granted: true, release, expired: expiry.signal };
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
    return heldSlot(this.caps.lifetimeMs ?? EXPORT_SLOT_LIFETIME_MS, async () => {
      this.running -= 1;
      // Set when taken, removed only by the last release of this person's slots.
      const left = (this.byPerson.get(person) as number) - 1;
      if (left > 0) this.byPerson.set(person, left);
      else this.byPerson.delete(person);
    });
  }
}
