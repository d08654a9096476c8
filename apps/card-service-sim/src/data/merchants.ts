import { mulberry32, pick } from './prng';
import { cities, merchantAdjectives, merchantCategories, rawPrefixes } from './word-lists';

export interface Merchant {
  name: string;
  raw: string;
  mcc: string;
}

export function generateMerchants(seed: number, count: number): Merchant[] {
  const rng = mulberry32(seed ^ 0x3e4c_a47e);
  const merchants: Merchant[] = [];
  for (let i = 0; i < count; i++) {
    const category = pick(rng, merchantCategories);
    const name = `${pick(rng, merchantAdjectives)} ${pick(rng, category.nouns)}`;
    const raw = `${pick(rng, rawPrefixes)}${name.toUpperCase()} ${pick(rng, cities)}`;
    merchants.push({ name, raw, mcc: category.mcc });
  }
  return merchants;
}
