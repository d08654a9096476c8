/**
 * Merchant category groups: the ranges of four-digit codes ISO 18245 assigns, as the card
 * networks publish them (Visa Merchant Data Standards Manual, Mastercard Quick Reference
 * Booklet). The travel block 3000–3999 is split the networks' way: airlines to 3350, car
 * rental to 3500, lodging from 3501 (some issuers' summaries cut at 3299 and 3499 instead).
 * Names of single codes come from the `mcc` package (the BFF's `merchant-categories.ts`).
 */
export interface CategoryGroup {
  key: string;
  label: string;
  /** Inclusive bounds of the codes, as numbers. */
  first: number;
  last: number;
}

export const categoryGroups: readonly CategoryGroup[] = [
  { key: 'agricultural', label: 'Agricultural services', first: 1, last: 1499 },
  { key: 'contracted', label: 'Contracted services', first: 1500, last: 2999 },
  { key: 'airlines', label: 'Airlines', first: 3000, last: 3350 },
  { key: 'car-rental', label: 'Car rental', first: 3351, last: 3500 },
  { key: 'lodging', label: 'Lodging', first: 3501, last: 3999 },
  { key: 'transportation', label: 'Transportation services', first: 4000, last: 4799 },
  { key: 'utilities', label: 'Utilities and telecommunications', first: 4800, last: 4999 },
  { key: 'retail', label: 'Retail outlets', first: 5000, last: 5599 },
  { key: 'clothing', label: 'Clothing stores', first: 5600, last: 5699 },
  { key: 'misc-stores', label: 'Miscellaneous stores', first: 5700, last: 7299 },
  { key: 'business', label: 'Business services', first: 7300, last: 7999 },
  {
    key: 'professional',
    label: 'Professional services and membership organizations',
    first: 8000,
    last: 8999,
  },
  { key: 'government', label: 'Government services', first: 9000, last: 9999 },
];

/** Debits with no merchant category (transfers, payments) or a code outside every range. */
export const uncategorized: Pick<CategoryGroup, 'key' | 'label'> = {
  key: 'uncategorized',
  label: 'No merchant category',
};

const byKey = new Map<string, Pick<CategoryGroup, 'key' | 'label'>>(
  [...categoryGroups, uncategorized].map((g) => [g.key, g]),
);

/** The group key of a merchant category code; `uncategorized` when it has none. */
export function categoryGroupOf(code: string | undefined): string {
  if (code === undefined || !/^\d{4}$/.test(code)) return uncategorized.key;
  const n = Number(code);
  for (const group of categoryGroups) if (n >= group.first && n <= group.last) return group.key;
  return uncategorized.key;
}

export function categoryGroupLabel(key: string): string {
  return byKey.get(key)?.label ?? key;
}
