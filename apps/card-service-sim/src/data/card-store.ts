import type { CardStatus } from '@card-console/shared/upstream/card';
import type { GeneratedCard } from './generate-cards';
import type { Card, CardWithSecrets } from './model';

export type CardSortField = 'createdAt' | 'name';
export type CardSortKey = [value: string, id: string];

export interface CardListRequest {
  status?: CardStatus;
  sort: CardSortField;
  direction: 'ASC' | 'DESC';
  after?: CardSortKey;
}

export interface CardLimitsPatch {
  name?: string;
  minimumCents?: number;
  maximumCents?: number;
}

function withoutSecrets(card: CardWithSecrets): Card {
  const { pan: _pan, cvv: _cvv, ...rest } = card;
  return structuredClone(rest);
}

/** First position where the monotonic predicate holds (list length when none). */
function searchFirst<T>(list: T[], holds: (item: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (holds(list[mid] as T)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function compareKeys(a: CardSortKey, b: CardSortKey): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

/**
 * Cards with their secrets, in memory. Sorting is by (createdAt or name, id) in plain
 * code-unit order, so a keyset cursor (the last item's key) resumes exactly where it left off.
 */
export class CardStore {
  private readonly byId = new Map<string, { index: number; card: CardWithSecrets }>();
  private readonly sorted = new Map<CardSortField, CardWithSecrets[]>();

  constructor(private readonly generated: GeneratedCard[]) {
    generated.forEach(({ card }, index) => {
      this.byId.set(card.id, { index, card });
    });
  }

  get size(): number {
    return this.generated.length;
  }

  indexOf(id: string): number | undefined {
    return this.byId.get(id)?.index;
  }

  idAt(index: number): string {
    return this.generated[index]?.card.id ?? '';
  }

  subIndexAt(index: number): number {
    return this.generated[index]?.subAccountIndex ?? -1;
  }

  /** Indexes of the cards of each sub account. */
  cardsBySub(subAccounts: number): number[][] {
    const out = Array.from({ length: subAccounts }, () => [] as number[]);
    this.generated.forEach((g, i) => {
      out[g.subAccountIndex]?.push(i);
    });
    return out;
  }

  static keyOf(card: Card, sort: CardSortField): CardSortKey {
    return [sort === 'name' ? card.name : card.createdAt, card.id];
  }

  private sortedBy(sort: CardSortField): CardWithSecrets[] {
    let list = this.sorted.get(sort);
    if (!list) {
      list = this.generated
        .map((g) => g.card)
        .sort((a, b) => compareKeys(CardStore.keyOf(a, sort), CardStore.keyOf(b, sort)));
      this.sorted.set(sort, list);
    }
    return list;
  }

  page(request: CardListRequest, limit: number): { items: Card[]; more: boolean } {
    const list = this.sortedBy(request.sort);
    const { after, sort } = request;
    const asc = request.direction === 'ASC';
    // Keyset: resume strictly past the cursor's key in the walk direction.
    let k: number;
    if (asc)
      k = after ? searchFirst(list, (c) => compareKeys(CardStore.keyOf(c, sort), after) > 0) : 0;
    else
      k = after
        ? searchFirst(list, (c) => compareKeys(CardStore.keyOf(c, sort), after) >= 0) - 1
        : list.length - 1;
    const step = asc ? 1 : -1;
    const items: Card[] = [];
    for (; k >= 0 && k < list.length; k += step) {
      const card = list[k] as CardWithSecrets;
      if (request.status && card.status !== request.status) continue;
      if (items.length === limit) return { items, more: true };
      items.push(withoutSecrets(card));
    }
    return { items, more: false };
  }

  get(id: string): CardWithSecrets | undefined {
    return this.byId.get(id)?.card;
  }

  read(id: string, include: { pan: boolean; cvv: boolean }): Card | undefined {
    const card = this.get(id);
    if (!card) return undefined;
    const out: Card & { pan?: string; cvv?: string } = withoutSecrets(card);
    if (include.pan) out.pan = card.pan;
    if (include.cvv) out.cvv = card.cvv;
    return out;
  }

  /** Applies a validated patch; returns 'invalid_limits' when minimum would exceed maximum. */
  patch(id: string, patch: CardLimitsPatch): Card | undefined | 'invalid_limits' {
    const card = this.get(id);
    if (!card) return undefined;
    const limits = card.spendingConstraint.spendingRule.transactionSizeLimit;
    const minimum = patch.minimumCents ?? limits.minimum.amountCents;
    const maximum = patch.maximumCents ?? limits.maximum.amountCents;
    if (minimum > maximum) return 'invalid_limits';
    limits.minimum = { amountCents: minimum };
    limits.maximum = { amountCents: maximum };
    if (patch.name !== undefined && patch.name !== card.name) {
      card.name = patch.name;
      this.sorted.delete('name');
    }
    return withoutSecrets(card);
  }
}
