/// <reference path="./mcc.d.ts" />
import mcc from 'mcc';

/**
 * Merchant category codes (ISO 18245, as the card networks publish them) → names, from the
 * `mcc` package (MIT; its list is greggles/mcc-codes: the networks' codes with the IRS and
 * USDA names, edited to the networks' current wording). Built once; a lookup is one Map get.
 * The source writes some names with a space after "(": tidied here.
 */
const names: ReadonlyMap<string, string> = new Map(
  mcc.all.map((category) => [
    category.mcc,
    category.edited_description.replace(/\(\s+/g, '(').replace(/\s+/g, ' ').trim(),
  ]),
);

/** The category's name for a four-digit code; undefined for a code the list does not know. */
export function merchantCategoryName(code: string): string | undefined {
  return names.get(code);
}

/** Every code the list names, in code order, each once. */
export function allMerchantCategories(): { code: string; name: string }[] {
  return [...names]
    .map(([code, name]) => ({ code, name }))
    .sort((a, b) => (a.code < b.code ? -1 : 1));
}
