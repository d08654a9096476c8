// The merchant categories the transactions screen's category filter offers: every ISO 18245
// code the `mcc` package names, its network group, and everyday themes. A finance person asks
// for "software" or "travel", words few codes' names contain ("software" is in 5734's name but
// not in 5817's, "Digital Goods: Applications", nor 7372's, "Computer Programming…"), so a
// theme names the codes such a question means. The themes are ours: a short list, each code
// chosen from the networks' descriptions; a code may have several.
import {
  type CategoryCatalog,
  categoryCatalogSchema,
} from '@card-console/shared/api/transaction-index';
import {
  categoryGroupOf,
  categoryGroups,
  uncategorized,
} from '@card-console/shared/category-groups';
import { allMerchantCategories } from '../transactions';

/** Everyday words → the codes they mean (inclusive ranges as [first, last]). */
const themes: Readonly<Record<string, readonly (string | readonly [string, string])[]>> = {
  software: ['5045', '5734', '5817', '5818', '7372', '4816'],
  'cloud and hosting': ['4816', '7372'],
  travel: [
    ['3000', '3999'],
    '4111',
    '4112',
    '4121',
    '4131',
    '4411',
    '4511',
    '4722',
    '7011',
    '7512',
  ],
  airlines: [['3000', '3350'], '4511'],
  lodging: [['3501', '3999'], '7011'],
  'car rental': [['3351', '3500'], '7512'],
  'taxis and rideshare': ['4121'],
  'meals and entertainment': ['5811', '5812', '5813', '5814', '7832', '7922'],
  restaurants: ['5811', '5812', '5813', '5814'],
  fuel: ['5541', '5542', '5983', '5172'],
  'advertising and marketing': ['7311', '7333', '7338'],
  'office supplies': ['5044', '5111', '5943'],
  shipping: ['4214', '4215', '9402'],
  telecommunications: ['4812', '4814', '4816', '4821', '4899'],
  'professional services': ['8111', '8931', '8999', '7392'],
  'training and education': ['8220', '8241', '8244', '8249', '8299'],
  'government fees and taxes': ['9211', '9222', '9223', '9311', '9399'],
};

function themesOf(code: string): string[] {
  return Object.entries(themes)
    .filter(([, codes]) =>
      codes.some((c) => (typeof c === 'string' ? c === code : code >= c[0] && code <= c[1])),
    )
    .map(([theme]) => theme);
}

const pad = (n: number) => String(n).padStart(4, '0');

let built: CategoryCatalog | undefined;

/** The catalog, built once (about 1,000 categories). */
export function categoryCatalog(): CategoryCatalog {
  built ??= categoryCatalogSchema.parse({
    groups: [
      ...categoryGroups.map((g) => ({
        key: g.key,
        label: g.label,
        first: pad(g.first),
        last: pad(g.last),
      })),
      uncategorized,
    ],
    categories: allMerchantCategories().map(({ code, name }) => {
      const words = themesOf(code);
      return {
        code,
        name,
        group: categoryGroupOf(code),
        ...(words.length > 0 ? { themes: words } : {}),
      };
    }),
  });
  return built;
}

/** A group key's inclusive code bounds; `uncategorized` has none (it is "no known code"). */
export function categoryGroupRange(key: string): readonly [string, string] | undefined {
  const group = categoryGroups.find((g) => g.key === key);
  return group ? [pad(group.first), pad(group.last)] : undefined;
}
