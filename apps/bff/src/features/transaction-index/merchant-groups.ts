// The index's merchants: its card descriptors grouped by `merchants.ts` (remade at most once a
// minute per process: a GROUP BY over the index and the grouping of every text), then the names
// admins gave (read at every use, so a change is seen at once by every replica): a group named
// goes by that name and belongs to the merchant of its key.
import { type MerchantName, merchantOf, merchantsOf } from '@card-console/shared/merchants';
import type { Clock } from '../../core/clock';
import type { MerchantNameRow } from './merchant-names-store';

/** How long the index's descriptors grouped are used before they are made again. */
export const MERCHANT_GROUPS_MS = 60_000;

/** A text of a merchant and how many of the index's rows carry it. */
export interface MerchantText {
  text: string;
  rows: number;
}

/** The descriptors grouped by `merchants.ts` alone: each text's merchant, each key's texts. */
interface Grouping {
  byText: Map<string, MerchantName>;
  groups: Map<string, MerchantText[]>;
}

/** The merchants as people see them: the grouping with the names admins gave. */
export interface MerchantGroups {
  /** The merchant a text names (one the index does not hold yet: by itself). */
  nameOf(descriptor: string): MerchantName;
  /**
   * A merchant's texts, the most used first (none: the index has no text of it). Under the key
   * `''`: every text of no letter or digit, each a merchant of its own (`merchantTexts`).
   */
  textsOf(key: string): MerchantText[];
  /** Whether the index has a group of descriptors of its own under `key`. */
  hasGroup(key: string): boolean;
  /** Whether the grouping holds this text (one synced since it was made does not). */
  hasText(descriptor: string): boolean;
  /** For a merchant an admin named: who last, when, and how many groups go by its name. */
  namedOf(key: string): { by: string; at: string; groups: number } | undefined;
  /** The texts of the merchants written more than one way, each to its merchant's key. */
  severalWays(): Map<string, string>;
}

const byUse = (a: MerchantText, b: MerchantText) =>
  b.rows - a.rows || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);

function grouping(texts: readonly MerchantText[]): Grouping {
  const byText = merchantsOf(texts.map((t) => t.text));
  const groups = new Map<string, MerchantText[]>();
  for (const t of texts) {
    const key = byText.get(t.text)?.key ?? '';
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  for (const list of groups.values()) list.sort(byUse);
  return { byText, groups };
}

/** The grouping with the names: `names` keyed by the group each renames. */
export function withNames(auto: Grouping, names: readonly MerchantNameRow[]): MerchantGroups {
  const renamed = new Map(names.map((r) => [r.merchantKey, r]));
  const rename = (merchant: MerchantName): MerchantName => {
    const row = renamed.get(merchant.key);
    return row ? { key: row.nameKey, name: row.name } : merchant;
  };
  const groups = new Map<string, MerchantText[]>();
  for (const [key, texts] of auto.groups) {
    const to = renamed.get(key)?.nameKey ?? key;
    groups.set(to, [...(groups.get(to) ?? []), ...texts]);
  }
  if (renamed.size > 0) for (const list of groups.values()) list.sort(byUse);
  const named = new Map<string, { by: string; at: string; groups: number }>();
  for (const r of [...names].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : 1))) {
    named.set(r.nameKey, {
      by: r.updatedBy,
      at: r.updatedAt,
      groups: (named.get(r.nameKey)?.groups ?? 0) + 1,
    });
  }
  return {
    nameOf: (descriptor) =>
      rename(auto.byText.get(descriptor) ?? merchantOf(descriptor, (key) => auto.groups.has(key))),
    textsOf: (key) => groups.get(key) ?? [],
    hasGroup: (key) => auto.groups.has(key),
    hasText: (descriptor) => auto.byText.has(descriptor),
    namedOf: (key) => named.get(key),
    severalWays: () => {
      const ways = new Map<string, string>();
      for (const [key, texts] of groups) {
        // No key (a text of no letter or digit): each text is a merchant of its own.
        if (key !== '' && texts.length > 1) for (const t of texts) ways.set(t.text, key);
      }
      return ways;
    },
  };
}

/**
 * The freshest grouping asked for: one outdated by a write here, or asked for because it lacks
 * a merchant or a text, is made again only once it is this old.
 */
export const MERCHANT_GROUPS_MIN_MS = 5_000;

/**
 * The index's merchants, its texts grouped at most once every `maxAgeMs` (60 s by default; a
 * caller that met a merchant or a text the grouping does not know asks for a fresher one), and
 * again once a sync here has written (`written`, at most every 5 s), with the names read each
 * time.
 */
export function merchantGroupsOf(deps: {
  clock: Clock;
  texts: () => Promise<MerchantText[]>;
  names: () => Promise<MerchantNameRow[]>;
}): {
  current(maxAgeMs?: number): Promise<MerchantGroups>;
  /** The index was written here: the next grouping at least 5 s old is made again. */
  written(): void;
} {
  let grouped: { at: number; value: Promise<Grouping> } | undefined;
  let writtenAt = Number.NEGATIVE_INFINITY;
  const auto = (maxAgeMs: number) => {
    const now = deps.clock.now();
    const age = grouped ? now - grouped.at : Number.POSITIVE_INFINITY;
    const outdated = grouped !== undefined && grouped.at <= writtenAt;
    if (grouped && age < (outdated ? Math.min(maxAgeMs, MERCHANT_GROUPS_MIN_MS) : maxAgeMs)) {
      return grouped.value;
    }
    const value = deps.texts().then(grouping);
    grouped = { at: now, value };
    value.catch(() => {
      if (grouped?.value === value) grouped = undefined;
    });
    return value;
  };
  return {
    async current(maxAgeMs = MERCHANT_GROUPS_MS) {
      const [groups, names] = await Promise.all([auto(maxAgeMs), deps.names()]);
      return withNames(groups, names);
    },
    written() {
      writtenAt = deps.clock.now();
    },
  };
}
