// The merchant behind a card descriptor. Processors write one merchant many ways: a payment
// facilitator's prefix ("SQ *", "TST* ", "PAYPAL *"), a store number ("#1234"), the city and
// state, a phone number or a help address, a reference after a brand's star ("AMZN MKTP
// US*2K4RT1"). `merchantOf` takes those off and answers the merchant's name and a key that
// groups every descriptor of it, and only of it: when unsure it leaves words on, so two
// merchants are never made one (a descriptor left apart can be joined by hand; a merge is a
// wrong figure).

/** At most this many of a merchant's descriptors are named in an answer (the most used). */
export const MERCHANT_DESCRIPTORS = 20;

/** A merchant as a descriptor names it: `key` groups descriptors, `name` is how it is shown. */
export interface MerchantName {
  key: string;
  name: string;
}

/**
 * Payment facilitators that put their own prefix before the merchant's name: the merchant is
 * what follows the star (Square, Toast, PayPal, Shopify, Stripe's, Clover, SumUp, Zettle…).
 */
const FACILITATORS = [
  'SQ',
  'SQU',
  'TST',
  'PAYPAL',
  'PP',
  'SP',
  'PY',
  'IN',
  'CLV',
  'SUMUP',
  'ZTL',
  'IZ',
  'WPY',
  'FS',
  'BT',
  'EB',
];

/**
 * Brands whose descriptors carry what was bought or a reference after a star or a slash: the
 * brand is the merchant (`UBER *TRIP`, `AMZN MKTP US*2K4RT1`, `APPLE.COM/BILL`). Tested in
 * order, longest first where one starts another.
 */
const BRANDS: readonly (readonly [RegExp, string])[] = [
  [/^UBER\s*\*?\s*EATS\b/, 'Uber Eats'],
  [/^UBER\b/, 'Uber'],
  [/^LYFT\b/, 'Lyft'],
  [/^(AMZN|AMAZON)\s*(MKTP|MARKETPLACE|MKTPLACE)\b/, 'Amazon Marketplace'],
  [/^(AMZN|AMAZON)\s*(WEB SERVICES|AWS)\b|^AWS\b/, 'Amazon Web Services'],
  [/^(AMZN|AMAZON)(\.COM)?\b/, 'Amazon'],
  [/^GOOGLE\b/, 'Google'],
  [/^APPLE\.COM\b|^APPLE\b/, 'Apple'],
  [/^MSFT\b|^MICROSOFT\b/, 'Microsoft'],
  [/^DD\s*\*\s*DOORDASH\b|^DOORDASH\b/, 'DoorDash'],
  [/^GRUBHUB\b/, 'Grubhub'],
  [/^NETFLIX\b/, 'Netflix'],
  [/^SPOTIFY\b/, 'Spotify'],
  [/^ZOOM\.US\b|^ZOOM\s*VIDEO\b/, 'Zoom'],
  [/^SLACK\b/, 'Slack'],
  [/^ADOBE\b/, 'Adobe'],
  [/^DROPBOX\b/, 'Dropbox'],
  [/^GITHUB\b/, 'GitHub'],
];

/** US states, DC and territories, and Canada's provinces, as descriptors end with them. */
const REGIONS = new Set(
  (
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH ' +
    'NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI ' +
    'AB BC MB NB NL NS NT NU ON PE QC SK YT'
  ).split(' '),
);

/** Countries a descriptor may end with after its state (not `CA`: California first). */
const COUNTRIES = new Set(['US', 'USA', 'CAN', 'GBR', 'UK']);

/**
 * Cities descriptors end with (the largest in the US and Canada), upper case: what is taken off
 * after the state. A city not here stays in the name: its descriptors group by city then.
 */
const CITIES = new Set(
  [
    'NEW YORK',
    'NEW YORK CITY',
    'NYC',
    'BROOKLYN',
    'QUEENS',
    'BRONX',
    'STATEN ISLAND',
    'LOS ANGELES',
    'CHICAGO',
    'HOUSTON',
    'PHOENIX',
    'PHILADELPHIA',
    'SAN ANTONIO',
    'SAN DIEGO',
    'DALLAS',
    'SAN JOSE',
    'AUSTIN',
    'JACKSONVILLE',
    'FORT WORTH',
    'COLUMBUS',
    'CHARLOTTE',
    'SAN FRANCISCO',
    'SO SAN FRANCISCO',
    'SOUTH SAN FRANCISCO',
    'INDIANAPOLIS',
    'SEATTLE',
    'DENVER',
    'WASHINGTON',
    'BOSTON',
    'EL PASO',
    'NASHVILLE',
    'DETROIT',
    'OKLAHOMA CITY',
    'PORTLAND',
    'LAS VEGAS',
    'MEMPHIS',
    'LOUISVILLE',
    'BALTIMORE',
    'MILWAUKEE',
    'ALBUQUERQUE',
    'TUCSON',
    'FRESNO',
    'MESA',
    'SACRAMENTO',
    'ATLANTA',
    'KANSAS CITY',
    'COLORADO SPRINGS',
    'OMAHA',
    'RALEIGH',
    'MIAMI',
    'MIAMI BEACH',
    'LONG BEACH',
    'VIRGINIA BEACH',
    'OAKLAND',
    'MINNEAPOLIS',
    'TULSA',
    'TAMPA',
    'ARLINGTON',
    'NEW ORLEANS',
    'WICHITA',
    'CLEVELAND',
    'BAKERSFIELD',
    'AURORA',
    'ANAHEIM',
    'HONOLULU',
    'SANTA ANA',
    'RIVERSIDE',
    'CORPUS CHRISTI',
    'LEXINGTON',
    'STOCKTON',
    'HENDERSON',
    'SAINT PAUL',
    'ST PAUL',
    'ST LOUIS',
    'SAINT LOUIS',
    'CINCINNATI',
    'PITTSBURGH',
    'GREENSBORO',
    'ANCHORAGE',
    'PLANO',
    'LINCOLN',
    'ORLANDO',
    'IRVINE',
    'NEWARK',
    'TOLEDO',
    'DURHAM',
    'CHULA VISTA',
    'FORT WAYNE',
    'JERSEY CITY',
    'ST PETERSBURG',
    'LAREDO',
    'MADISON',
    'CHANDLER',
    'BUFFALO',
    'LUBBOCK',
    'SCOTTSDALE',
    'RENO',
    'GLENDALE',
    'GILBERT',
    'WINSTON SALEM',
    'NORTH LAS VEGAS',
    'NORFOLK',
    'CHESAPEAKE',
    'GARLAND',
    'IRVING',
    'HIALEAH',
    'FREMONT',
    'BOISE',
    'RICHMOND',
    'BATON ROUGE',
    'SPOKANE',
    'DES MOINES',
    'TACOMA',
    'SAN BERNARDINO',
    'MODESTO',
    'FONTANA',
    'SANTA CLARITA',
    'BIRMINGHAM',
    'OXNARD',
    'FAYETTEVILLE',
    'MORENO VALLEY',
    'HUNTINGTON BEACH',
    'SALT LAKE CITY',
    'GRAND RAPIDS',
    'AMARILLO',
    'YONKERS',
    'MONTGOMERY',
    'AKRON',
    'LITTLE ROCK',
    'HUNTSVILLE',
    'AUGUSTA',
    'COLUMBIA',
    'GRAND PRAIRIE',
    'OVERLAND PARK',
    'TALLAHASSEE',
    'CAMBRIDGE',
    'SOMERVILLE',
    'BROOKLINE',
    'PALO ALTO',
    'MOUNTAIN VIEW',
    'MENLO PARK',
    'SUNNYVALE',
    'SANTA CLARA',
    'CUPERTINO',
    'REDWOOD CITY',
    'BERKELEY',
    'SANTA MONICA',
    'PASADENA',
    'BELLEVUE',
    'REDMOND',
    'KIRKLAND',
    'HOBOKEN',
    'STAMFORD',
    'HARTFORD',
    'PROVIDENCE',
    'BURLINGTON',
    'ANN ARBOR',
    'BOULDER',
    'SAVANNAH',
    'CHARLESTON',
    'ALEXANDRIA',
    'TORONTO',
    'MONTREAL',
    'VANCOUVER',
    'CALGARY',
    'OTTAWA',
    'EDMONTON',
  ].map((city) => city.replace(/\s+/g, ' ')),
);
/** The longest city, in words: how far back a city is looked for. */
const CITY_WORDS = 4;

/**
 * A store number: "#12", or four digits or more, or any with a leading zero ("00217"). A short
 * bare number stays: "CAFE 42" and "CAFE 7" are two merchants.
 */
const STORE_NUMBER = /^(#\d[\d-]*|\d{4,}|0\d+)$/;

/** The descriptor upper-cased, punctuation that carries nothing spaced out, runs of spaces one. */
function cleaned(descriptor: string): string {
  return descriptor
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\u2019']/g, '')
    .replace(/[,;:|"()[\]{}]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Takes a facilitator's prefix off: "SQ *BLUE BOTTLE" → "BLUE BOTTLE". */
function withoutFacilitator(text: string): string {
  const star = /^([A-Z]{2,6})\s?\*\s?(.+)$/.exec(text);
  if (star?.[1] && star[2] && FACILITATORS.includes(star[1])) return star[2].trim();
  return text;
}

/**
 * A star left after the facilitators: a reference after the name ("ACME SOFTWARE*INV4411") is
 * taken off; a short code before it (a facilitator not listed) gives way to the name after it;
 * otherwise the star is only a space, so no two merchants become one.
 */
function withoutStar(text: string): string {
  const star = /^(.+?)\s?\*\s?(.*)$/.exec(text);
  if (!star) return text;
  const [, left = '', right = ''] = star;
  if (right === '' || (/\d/.test(right) && /^[A-Z0-9-]{3,16}$/.test(right))) return left.trim();
  if (/^[A-Z]{2,4}$/.test(left)) return right.trim();
  return `${left} ${right}`.replace(/\*/g, ' ').replace(/\s+/g, ' ').trim();
}

/** Store numbers off the end: "#1234", "STORE 118", "NO 12", "004417". */
function withoutStoreNumber(input: readonly string[]): string[] {
  let words = [...input];
  for (;;) {
    const before = words.length;
    while (words.length > 1 && STORE_NUMBER.test(words.at(-1) as string))
      words = words.slice(0, -1);
    if (
      words.length > 2 &&
      /^\d+$/.test(words.at(-1) as string) &&
      /^(STORE|STR|STE|NO|UNIT|LOC|#)$/.test(words.at(-2) as string)
    ) {
      words = words.slice(0, -2);
    }
    if (words.length > 2 && /^(STORE|STR|STE|NO|UNIT|LOC)$/.test(words.at(-1) as string)) {
      words = words.slice(0, -1);
    }
    if (words.length === before) return words;
  }
}

/**
 * The name without what trails it: countries, the state and the city (or a phone number or a
 * help address in the city's place), store numbers. After a state whose city is not known,
 * `shorter` holds the names with one, two… of the last words taken off as a city: one of them
 * is the merchant if it is a merchant already known (`merchantsOf`).
 */
function withoutTail(text: string): { words: string[]; shorter: string[][] } {
  let words = text.split(' ');
  const drop = (test: (word: string) => boolean) => {
    while (words.length > 1 && test(words.at(-1) as string)) words = words.slice(0, -1);
  };
  drop((w) => COUNTRIES.has(w));
  const state = words.length > 1 && REGIONS.has(words.at(-1) as string);
  if (state) words = words.slice(0, -1);
  // Where the city goes: a phone number (800-555-0123, 8005550123, 800 555 0123) or a web or
  // help address; else, after a state, the longest city known. (A city with no state after
  // it is left on: "TASTE OF CHICAGO" is a name.)
  const phone = /(?:\+?1[ -]?)?\(?\d{3}\)?[ -.]?\d{3}[ -.]?\d{4}$/;
  const joined = words.join(' ');
  const call = phone.exec(joined);
  if (call && call.index > 0) words = joined.slice(0, call.index).trim().split(' ');
  drop((w) => /^(WWW\.)?[A-Z0-9-]+(\.[A-Z0-9-]+)*\.(COM|NET|ORG|IO|CO|US)(\/\S*)?$/.test(w));
  const shorter: string[][] = [];
  if (state && words.length === joined.split(' ').length) {
    let city = false;
    for (let n = Math.min(CITY_WORDS, words.length - 1); n >= 1 && !city; n -= 1) {
      if (CITIES.has(words.slice(-n).join(' '))) {
        words = words.slice(0, -n);
        city = true;
      }
    }
    if (!city) {
      for (let n = 1; n <= Math.min(CITY_WORDS, words.length - 1); n += 1) {
        shorter.push(withoutStoreNumber(words.slice(0, -n)));
      }
    }
  }
  return { words: withoutStoreNumber(words), shorter };
}

/** "PRAIRIE FUEL" → "Prairie Fuel"; "AT&T" and words with digits stay as they are. */
function titleCase(text: string): string {
  return text
    .split(' ')
    .map((word) =>
      /\d|&/.test(word) || word.length <= 1
        ? word
        : word[0] +
          word
            .slice(1)
            .toLowerCase()
            .replace(/([.-])([a-z])/g, (_m, p, c) => p + c.toUpperCase()),
    )
    .join(' ');
}

/** The key of a merchant's name, as `merchantOf` keys it (`Pine Telecom` → `pine telecom`). */
export function merchantKeyOf(name: string): string {
  return keyOf(name);
}

/**
 * The key two spellings of one merchant share: its ASCII letters and digits, lower case, one
 * space. A name with none (`北京饭店`, `Москва Ресторан`) is keyed by its letters and digits of
 * any script instead: it had no key, and every such merchant was one. A name of neither
 * (`☕☕☕`) has no key: it is a merchant of its own text alone (`MerchantGroups`).
 */
function keyOf(name: string): string {
  const lower = name.toLowerCase().replace(/&/g, ' and ');
  const ascii = lower.replace(/[^a-z0-9]+/g, ' ').trim();
  if (ascii !== '') return ascii;
  return lower
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A name as shown, and its key; a name that would be empty is the descriptor whole. */
function named(words: readonly string[], text: string): MerchantName {
  const bare = words.join(' ');
  const name = keyOf(bare) === '' ? text : bare;
  return { key: keyOf(name), name: titleCase(name) };
}

/**
 * The merchant a card descriptor names. A descriptor of nothing but a prefix, a place or a
 * number is kept whole (its own merchant), never emptied. After a state whose city is not on
 * the list, the words before the state stay on unless `known` says a name without them (one to
 * four words shorter) is a merchant already: `BLUE BOTTLE MOAB UT` is Blue Bottle where Blue
 * Bottle is known, else "Blue Bottle Moab".
 */
export function merchantOf(
  descriptor: string,
  known: (key: string) => boolean = () => false,
): MerchantName {
  const text = cleaned(descriptor);
  if (text === '') return { key: '', name: '' };
  for (const [pattern, brand] of BRANDS) {
    if (pattern.test(text)) return { key: keyOf(brand), name: brand };
  }
  const { words, shorter } = withoutTail(withoutStar(withoutFacilitator(text)));
  for (const candidate of shorter) {
    const merchant = named(candidate, text);
    if (merchant.key !== '' && known(merchant.key)) return merchant;
  }
  return named(words, text);
}

/**
 * The merchants of many descriptors at once (a sync's rows, an index's): each as `merchantOf`
 * names it, with the merchants the others name for certain known (a descriptor whose place is
 * not in doubt), so a town not on the list does not split a merchant.
 */
export function merchantsOf(descriptors: Iterable<string>): Map<string, MerchantName> {
  const all = [...new Set(descriptors)];
  const certain = new Set<string>();
  for (const descriptor of all) {
    const text = cleaned(descriptor);
    if (text === '' || BRANDS.some(([pattern]) => pattern.test(text))) continue;
    if (withoutTail(withoutStar(withoutFacilitator(text))).shorter.length === 0) {
      certain.add(merchantOf(descriptor).key);
    }
  }
  return new Map(all.map((d) => [d, merchantOf(d, (key) => certain.has(key))]));
}
