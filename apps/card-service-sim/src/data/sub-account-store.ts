import type { SubAccount } from './model';
import { mulberry32, randomToken } from './prng';
import { subAccountNames } from './word-lists';

/**
 * Sub accounts in creation order; a new one is appended, so a keyset cursor holding the
 * position of the last item sees it exactly once, at the end.
 */
export class SubAccountStore {
  private readonly items: SubAccount[] = [];
  private readonly byId = new Map<string, number>();
  private readonly rng;

  constructor(seed: number, count: number) {
    this.rng = mulberry32(seed ^ 0x5ab_acc7);
    for (let i = 0; i < count; i++) {
      const base = subAccountNames[i % subAccountNames.length] ?? 'Team';
      const round = Math.floor(i / subAccountNames.length);
      this.add(round === 0 ? base : `${base} ${round + 1}`);
    }
  }

  get size(): number {
    return this.items.length;
  }

  add(name: string): SubAccount {
    let id = `sa_${randomToken(this.rng, 10)}`;
    while (this.byId.has(id)) id = `sa_${randomToken(this.rng, 10)}`;
    const item: SubAccount = { id, name, balance: { amountCents: 0 }, spend: { amountCents: 0 } };
    this.byId.set(id, this.items.length);
    this.items.push(item);
    return item;
  }

  setFigures(index: number, balanceCents: number, spendCents: number): void {
    const item = this.items[index];
    if (!item) return;
    item.balance = { amountCents: balanceCents };
    item.spend = { amountCents: spendCents };
  }

  indexOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  idAt(index: number): string {
    return this.items[index]?.id ?? '';
  }

  /** Items after position `after` (exclusive); `lastPosition` is set when more exist. */
  page(limit: number, after = -1): { items: SubAccount[]; lastPosition?: number } {
    const start = after + 1;
    const items = this.items.slice(start, start + limit).map((s) => structuredClone(s));
    const end = start + items.length;
    return end < this.items.length ? { items, lastPosition: end - 1 } : { items };
  }

  all(): SubAccount[] {
    return this.items.map((s) => structuredClone(s));
  }
}
