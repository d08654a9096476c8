// The merchant normaliser on a generated set of card descriptors: many merchants, each written
// the ways processors write them (the simulator's prefixes "SQ *", "TST* ", "PAYPAL *" and other
// facilitators', store numbers, cities and states, some the normaliser does not know, commas,
// doubled spaces), and brands with references after a star. Its measures, printed: the share of
// descriptors grouped with their merchant (goal ≥ 95 %), and merges of two merchants (goal 0).
import { describe, expect, it } from 'vitest';
import { merchantKeyOf, merchantOf, merchantsOf } from './merchants';

/** A small seeded generator (mulberry32), so the set is the same on every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pickOf =
  (r: () => number) =>
  <T>(items: readonly T[]): T =>
    items[Math.floor(r() * items.length)] as T;

const FIRST = [
  'Blue',
  'Prairie',
  'Summit',
  'Harbor',
  'Golden',
  'Cedar',
  'Maple',
  'Union',
  'Granite',
  'Coastal',
  'Silver',
  'Red Rock',
  'Lakeside',
  'Northside',
  'Metro',
  'Bright',
  'Urban',
  'Pine',
  'Oak',
  'Iron',
  'Copper',
  'River',
  'Hillside',
  'Sunset',
  'Liberty',
  'Pioneer',
  'Evergreen',
  'Crescent',
  'Juniper',
];
const SECOND = [
  'Fuel',
  'Taxi',
  'Inn',
  'Suites',
  'Cafe',
  'Bistro',
  'Kitchen',
  'Grill',
  'Tacos',
  'Noodles',
  'Air',
  'Software',
  'Cloud',
  'Labs',
  'Office Supply',
  'Paper Co',
  'Telecom',
  'Wireless',
  'Consulting',
  'Computers',
  'Electronics',
  'Travel',
  'Bottle',
  'Bakery',
  'Hardware',
  'Print Shop',
  'Florist',
];
/** Names that look like something the normaliser takes off, which must stay on. */
const TRICKY = [
  'Cafe 42',
  'Cafe 7',
  'Studio 54',
  'Taste of Chicago',
  'Taste of Denver',
  'Boston Market',
  'AT&T',
  'B&H Photo',
  'Pier 1 Imports',
  '7 Eleven',
  'Blue Bottle Coffee',
  'Union Square Cafe',
];
const BIG_CITIES = [
  ['SAN FRANCISCO', 'CA'],
  ['NEW YORK', 'NY'],
  ['AUSTIN', 'TX'],
  ['SEATTLE', 'WA'],
  ['CHICAGO', 'IL'],
  ['DENVER', 'CO'],
  ['BOSTON', 'MA'],
  ['MIAMI', 'FL'],
  ['LOS ANGELES', 'CA'],
  ['PORTLAND', 'OR'],
  ['ATLANTA', 'GA'],
  ['SALT LAKE CITY', 'UT'],
  ['TORONTO', 'ON'],
  ['SAINT PAUL', 'MN'],
  ['PALO ALTO', 'CA'],
  ['BROOKLYN', 'NY'],
] as const;
/** Towns the normaliser's list does not hold: their descriptors may stay apart, never merge. */
const SMALL_TOWNS = [
  ['FLAGSTAFF', 'AZ'],
  ['BOZEMAN', 'MT'],
  ['MOAB', 'UT'],
  ['TAOS', 'NM'],
  ['BAR HARBOR', 'ME'],
] as const;
const PREFIXES = ['', '', '', 'SQ *', 'TST* ', 'PAYPAL *', 'SQ*', 'PP*', 'SP * ', 'TST*'];
const STORES = ['', '', '', ' #1234', ' #0042', ' STORE 118', ' 004417', ' #12'];

interface Labelled {
  merchant: string;
  descriptor: string;
}

/** The set: `perMerchant` descriptors of each merchant, and the brands' own. */
function generatedSet(seed: number, perMerchant: number): Labelled[] {
  const r = rng(seed);
  const pick = pickOf(r);
  const names = new Set<string>(TRICKY);
  for (const first of FIRST)
    for (const second of SECOND) if (r() < 0.3) names.add(`${first} ${second}`);
  const out: Labelled[] = [];
  for (const merchant of names) {
    for (let i = 0; i < perMerchant; i += 1) {
      const [city, state] = r() < 0.1 ? pick(SMALL_TOWNS) : pick(BIG_CITIES);
      const place = pick([
        '',
        ` ${city} ${state}`,
        ` ${city} ${state}`,
        ` ${city}, ${state}`,
        ` ${city} ${state} USA`,
      ]);
      const name = merchant.toUpperCase();
      let descriptor = `${pick(PREFIXES)}${name}${pick(STORES)}${place}`;
      if (r() < 0.1) descriptor = descriptor.replace(/ /g, '  ');
      if (r() < 0.1) descriptor = descriptor.toLowerCase();
      out.push({ merchant, descriptor });
    }
  }
  const brands: Record<string, string[]> = {
    Amazon: ['AMAZON.COM*MK1AB2CD0', 'AMZN.COM/BILL WA', 'Amazon.com*2K4RT1 Amzn.com/bill WA'],
    'Amazon Marketplace': ['AMZN MKTP US*2K4RT1', 'AMZN Mktp US*MK7TT0A12', 'AMAZON MKTPLACE PMTS'],
    Uber: ['UBER *TRIP HELP.UBER.COM CA', 'UBER   *TRIP', 'UBER* TRIP 8005928996'],
    'Uber Eats': ['UBER *EATS', 'UBER EATS HELP.UBER.COM CA', 'UBER* EATS PENDING'],
    Lyft: ['LYFT *RIDE SUN 5PM', 'LYFT *RIDE THU 8AM', 'LYFT   *TEMP AUTH HOLD'],
    Google: ['GOOGLE *GSUITE_EXAMPLE', 'GOOGLE *CLOUD 4XK2L9', 'GOOGLE*ADS1234567'],
    Apple: ['APPLE.COM/BILL', 'APPLE.COM/US 866-712-7753 CA'],
    DoorDash: ['DD *DOORDASH BURGERS', 'DOORDASH*TACOS 855-973-1040 CA'],
  };
  for (const [merchant, descriptors] of Object.entries(brands)) {
    for (const descriptor of descriptors) out.push({ merchant, descriptor });
  }
  return out;
}

describe('the merchant behind a card descriptor', () => {
  it.each([
    ['SQ *PRAIRIE FUEL SAN FRANCISCO CA', 'Prairie Fuel'],
    ['PAYPAL *SUMMIT TAXI BOSTON MA', 'Summit Taxi'],
    ['TST* UNION INN', 'Union Inn'],
    ['STARBUCKS #1234 SEATTLE WA', 'Starbucks'],
    ['CAFE 42 NEW YORK NY', 'Cafe 42'],
    ['TASTE OF CHICAGO', 'Taste of Chicago'],
    ['TASTE OF CHICAGO CHICAGO IL', 'Taste of Chicago'],
    ['AT&T*BILL PAYMENT 800-331-0500 TX', 'AT&T Bill Payment'],
    ['AMZN MKTP US*2K4RT1', 'Amazon Marketplace'],
    ['UBER *TRIP HELP.UBER.COM CA', 'Uber'],
    ['ACME SOFTWARE*INV4411', 'Acme Software'],
    ['SQ *', 'Sq'],
    ['  ', ''],
  ])('%s → %s', (descriptor, name) => {
    expect(merchantOf(descriptor).name.toLowerCase()).toBe(name.toLowerCase());
  });

  it('takes a town it does not know off only where the name without it is a merchant known', () => {
    expect(merchantOf('BLUE BOTTLE MOAB UT').name).toBe('Blue Bottle Moab');
    expect(merchantOf('BLUE BOTTLE MOAB UT', (key) => key === 'blue bottle').name).toBe(
      'Blue Bottle',
    );
    const together = merchantsOf(['SQ *BLUE BOTTLE SEATTLE WA', 'BLUE BOTTLE #0042 MOAB UT']);
    expect([...together.values()].map((m) => m.key)).toEqual(['blue bottle', 'blue bottle']);
  });

  it('groups ≥ 95 % of a generated set with their merchant, all at once, and never makes two merchants one', () => {
    const set = generatedSet(2026, 8);
    const merchants = merchantsOf(set.map((l) => l.descriptor));
    const merchantOf = (descriptor: string) => merchants.get(descriptor) as { key: string };
    const keysOf = new Map<string, Set<string>>();
    for (const { merchant, descriptor } of set) {
      const key = merchantOf(descriptor).key;
      const keys = keysOf.get(merchant) ?? new Set<string>();
      keys.add(key);
      keysOf.set(merchant, keys);
    }
    // A merchant's key: the one most of its descriptors got.
    const main = new Map<string, string>();
    for (const [merchant] of keysOf) {
      const counts = new Map<string, number>();
      for (const l of set.filter((s) => s.merchant === merchant)) {
        const key = merchantOf(l.descriptor).key;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      main.set(merchant, [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '');
    }
    const grouped = set.filter((l) => merchantOf(l.descriptor).key === main.get(l.merchant));
    const apart = set.filter((l) => merchantOf(l.descriptor).key !== main.get(l.merchant));
    // Merges: a key two merchants' descriptors share.
    const owners = new Map<string, Set<string>>();
    for (const [merchant, keys] of keysOf) {
      for (const key of keys) owners.set(key, (owners.get(key) ?? new Set()).add(merchant));
    }
    const merges = [...owners].filter(([, merchants]) => merchants.size > 1);
    const share = grouped.length / set.length;
    console.info(
      `merchant grouping: ${set.length} descriptors of ${keysOf.size} merchants; ` +
        `${(share * 100).toFixed(1)} % grouped; ${merges.length} merges; apart: ` +
        apart
          .slice(0, 8)
          .map((l) => `"${l.descriptor}"`)
          .join(', '),
    );
    expect(merges).toEqual([]);
    expect(share).toBeGreaterThanOrEqual(0.95);
  });
});

describe('the key of a merchant written in another script', () => {
  it('groups its spellings, keeps merchants of different scripts apart, and leaves ASCII keys as they were', () => {
    expect(merchantKeyOf('Москва  Ресторан')).toBe('москва ресторан');
    expect(merchantOf('МОСКВА РЕСТОРАН').key).toBe('москва ресторан');
    expect(merchantOf('北京饭店').key).toBe('北京饭店');
    expect(merchantOf('東京カフェ').key).not.toBe(merchantOf('北京饭店').key);
    // Names admins gave are stored by key: a name with ASCII letters keys as before.
    expect(merchantKeyOf('Café Luigi')).toBe('caf luigi');
    // No letter or digit in any script: no key (a merchant of its own text alone).
    expect(merchantKeyOf('☕☕☕')).toBe('');
  });
});
