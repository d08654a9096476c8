// Receipts made from demo transactions for the receipt inbox's tests and benchmark (issue 47):
// what a shop prints (its own name, not the card descriptor; a day or three before posting; a
// tip written on the slip or left blank), rendered by Chromium as a PDF with a text layer or as
// a picture, some pictures turned and speckled as a phone photo is. Generated, never copied.
// One file for now: the spec and the shop's words, then the page (split at `--- The page`).
import escapeHtml from 'escape-html';
// The e2e tests' launcher (Debian's Chromium, their flags), as bench/lib/browser.ts reuses it:
// playwright-core resolves from apps/web, so apps/bff needs no dependency of its own for it.
import { launchChromium } from '../../../../web/e2e/support/browser';

export type Browser = Awaited<ReturnType<typeof launchChromium>>;

/**
 * One receipt: what it prints and how it is rendered. Amounts in cents; the lines, the tax and a
 * printed tip add up to `totalCents`. With `tipLine: 'blank'` the slip is the one signed before
 * the tip: `totalCents` is what it prints, less than the card's amount.
 */
export interface ReceiptSpec {
  /** The shop's name as it prints it ("The Harbor Cafe", "HARBOR CAFE #112"), never the descriptor. */
  merchant: string;
  /** Street and city lines, `\n` between them. */
  address?: string;
  /** The shop's day, YYYY-MM-DD; printed in `dateStyle` (default `us`). */
  date: string;
  /** HH:MM, 24-hour; printed 12-hour unless the style is `iso`. */
  time?: string;
  dateStyle?: 'us' | 'us-short' | 'iso' | 'long';
  /** What the total is called: TOTAL, Amount due (an invoice), Balance due (a hotel folio). */
  layout?: 'receipt' | 'invoice' | 'folio';
  /** Lines under the header: server and table, invoice number, room and nights. */
  details?: string[];
  /** `cents` is the line's amount; with `qty` the unit price is `cents / qty`, exactly. */
  lines: { name: string; cents: number; qty?: number }[];
  taxCents: number;
  taxLabel?: string;
  /** A tip printed and included in the total (`tipLine: 'printed'`). */
  tipCents?: number;
  tipLine?: 'printed' | 'blank';
  /** Tip percentages a blank slip suggests, worked out on its total. */
  tipSuggestions?: number[];
  totalCents: number;
  /** "VISA ****4821". */
  cardLine?: string;
  footer?: string;
  format: 'pdf' | 'png' | 'jpeg';
  /** Pictures only: degrees, a photo's tilt. */
  rotateDeg?: number;
  /** Pictures only: grey paper, speckles, a slight blur. */
  noise?: boolean;
  /** Pictures only: pixels per CSS pixel, 1.5–2 (default 2), as a device scale factor. */
  scale?: number;
}

/** A transaction as the BFF's index holds it (the fields a receipt is made from). */
export interface ReceiptTransaction {
  description: string;
  /** The card descriptor: "SQ *HARBOR CAFE SAN FRANCISCO CA". */
  merchant?: string;
  /** ISO 18245 merchant category code. */
  categoryCode?: string;
  /** Negative: a debit. A receipt prints the size. */
  amountCents: number;
  /** Posting time, ISO 8601. */
  at: string;
}

export interface SpecOptions {
  format?: ReceiptSpec['format'];
  /** Restaurants only unless forced: about half get a tip, half of those left blank. */
  tip?: 'none' | 'printed' | 'blank';
}

import type { Rng } from '@card-console/card-service-sim';

export { mulberry32, type Rng } from '@card-console/card-service-sim';

const RESTAURANTS = new Set(['5812', '5813', '5814']);
const TAX_RATES = [0.0625, 0.0725, 0.08, 0.08625, 0.0875, 0.09, 0.095, 0.1025];

interface Kind {
  names: string[];
  /** A typical unit price: how many of an item a large amount buys. */
  unitCents: number;
  layout?: ReceiptSpec['layout'];
  taxes?: number[];
  taxLabel?: string;
  /** Never "2 x": a fare, a plan. */
  single?: boolean;
  /** What a shop of the kind adds to its name. */
  suffixes: string[];
}
const list = (words: string) => words.split('|');
const kind = (names: string, unitCents: number, more: Partial<Kind> = {}): Kind => ({
  names: names ? list(names) : [],
  unitCents,
  suffixes: list(', Inc.| LLC| Ltd.'),
  ...more,
});
const FOOD = { suffixes: list(' & Bar| Kitchen| & Grill') };
const SHOP = { suffixes: list(' & Co.| Store') };
const KINDS: Record<string, Kind> = {
  '5812': kind(
    'House salad|Soup of the day|Grilled salmon|Chicken sandwich|Veggie bowl|Fish tacos|Margherita pizza|Iced tea|Cappuccino|Chocolate cake',
    1400,
    FOOD,
  ),
  '5813': kind('IPA draft|House red|Old fashioned|Margarita|Nachos|Wings', 1100, FOOD),
  '5814': kind('Cheeseburger|Chicken tacos|Bean burrito|Ramen|Fries|Soda', 900, FOOD),
  '7011': kind('', 18_000, {
    layout: 'folio',
    taxes: [0.12, 0.145, 0.16],
    taxLabel: 'Occupancy tax',
    suffixes: list(' & Suites| & Spa'),
  }),
  '5734': kind(
    'Team plan, monthly|Additional seats|Storage add-on 100 GB|API usage|Support',
    2500,
    {
      layout: 'invoice',
      taxes: [0, 0, 0.0725, 0.08875],
      single: true,
    },
  ),
  '7399': kind('Professional services|Workshop facilitation|Project management', 15_000, {
    layout: 'invoice',
    taxes: [0],
  }),
  '4814': kind('Monthly plan|Device payment|International add-on', 4500, {
    layout: 'invoice',
    taxes: [0.08],
    taxLabel: 'Taxes & surcharges',
    single: true,
  }),
  '5943': kind(
    'Copy paper, 10 reams|Gel pens 12 pk|Sticky notes|Toner cartridge|Binder clips',
    1500,
    SHOP,
  ),
  '5045': kind('USB-C dock|27" monitor|Wireless mouse|Keyboard|Laptop stand|SSD 1 TB', 6000),
  '4121': kind('Trip fare|Booking fee|Tolls|Airport surcharge', 2500, {
    taxes: [0],
    single: true,
    suffixes: list(' Co.| Service'),
  }),
  '4511': kind('Airfare SFO-DEN|Seat selection|Checked bag', 20_000, {
    taxes: [0.075],
    taxLabel: 'Taxes, fees & charges',
    single: true,
  }),
  '4722': kind('Hotel booking|Flight booking|Service fee', 30_000, { taxes: [0], single: true }),
  // ' #' becomes a station number.
  '5541': kind('', 4000, { taxes: [0], suffixes: list(' Station| #') }),
};
const RETAIL = kind('General merchandise|Supplies|Accessories|Misc. items', 2000, SHOP);

const US_STATES = new Set(
  list(
    'AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY',
  ),
);
const TWO_WORD_CITIES = list(
  'SAN FRANCISCO|NEW YORK|LOS ANGELES|SAN DIEGO|SAN JOSE|LAS VEGAS|NEW ORLEANS|SALT LAKE',
);
const STREETS = list(
  'Market St|Main St|2nd Ave|Oak St|Broadway|Pine St|Congress Ave|Pike St|Elm St',
);
const PEOPLE = list('Maya|Leo|Ravi|Nora|Omar|Hana|Kofi|Elena');

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const between = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));
const titleCase = (text: string) =>
  text
    .toLowerCase()
    .replace(/(^|[\s\-/(])([a-z])/g, (_, gap: string, c: string) => gap + c.toUpperCase());

/** The descriptor without its processor prefix ("SQ *", "TST* ") and its city and state. */
export function descriptorName(descriptor: string): {
  name: string;
  city?: string;
  state?: string;
} {
  const words = descriptor
    .replace(/^[A-Z0-9.]{1,12} ?\* ?/i, '')
    .trim()
    .split(/\s+/);
  const state = words.at(-1)?.toUpperCase() ?? '';
  if (!US_STATES.has(state) || words.length < 4) return { name: words.join(' ') };
  const twoWords = words.slice(-3, -1).join(' ').toUpperCase();
  const cityWords = TWO_WORD_CITIES.includes(twoWords) && words.length >= 5 ? 2 : 1;
  return {
    name: words.slice(0, -1 - cityWords).join(' '),
    city: titleCase(words.slice(-1 - cityWords, -1).join(' ')),
    state,
  };
}

/** Picks a value by its share (the shares add up to 1). */
function weighted<T>(rng: Rng, choices: readonly (readonly [number, T])[]): T {
  let r = rng();
  for (const [share, value] of choices) {
    r -= share;
    if (r < 0) return value;
  }
  return (choices.at(-1) as readonly [number, T])[1];
}

/** How shops print their names, and how often. */
const NAME_STYLES: readonly (readonly [number, (base: string, kind: Kind, rng: Rng) => string])[] =
  [
    [0.3, (base) => base],
    [0.15, (base) => (base.startsWith('The ') ? base : `The ${base}`)],
    [
      0.2,
      (base, kind, rng) =>
        base + pick(rng, kind.suffixes).replace(/ #$/, ` #${between(rng, 100, 999)}`),
    ],
    [0.2, (base, _, rng) => `${base.toUpperCase()} #${between(rng, 2, 999)}`],
    [0.08, (base, _, rng) => `${base} - ${pick(rng, list('Downtown|Midtown|Airport|Uptown'))}`],
    [0.07, (base) => base.toUpperCase()],
  ];

function shopName(descriptor: string, kind: Kind, rng: Rng): string {
  const base = titleCase(descriptorName(descriptor).name);
  const name = weighted(rng, NAME_STYLES)(base, kind, rng);
  return name === descriptor ? `The ${name}` : name;
}

function shopDate(at: string, daysBefore: number): string {
  return new Date(Date.parse(at) - daysBefore * 86_400_000).toISOString().slice(0, 10);
}

/** `subtotal` in 1–6 lines of the kind's items; some lines are several of one at a round price. */
function itemLines(rng: Rng, subtotal: number, kind: Kind): ReceiptSpec['lines'] {
  const names = [...kind.names].sort(() => rng() - 0.5);
  const wanted =
    1 + between(rng, 0, 2) + Math.floor(Math.log10(Math.max(1, subtotal / kind.unitCents)));
  const count = Math.max(1, Math.min(wanted, 6, names.length, Math.floor(subtotal / 100)));
  const weights = names.slice(0, count).map(() => 0.5 + rng());
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const lines: ReceiptSpec['lines'] = [];
  let left = subtotal;
  for (let i = 0; i < count; i++) {
    const name = names[i] ?? 'Item';
    const room = left - (count - 1 - i) * 5;
    let cents =
      i === count - 1 ? left : Math.round((subtotal * (weights[i] ?? 1)) / weightSum / 5) * 5;
    cents = Math.max(1, Math.min(cents, room));
    const qty = kind.single ? 1 : Math.min(99, Math.max(1, Math.round(cents / kind.unitCents)));
    const unit = Math.max(5, Math.round(cents / qty / 5) * 5);
    if (i < count - 1 && qty > 1 && qty * unit < room) cents = qty * unit;
    lines.push(qty > 1 && cents % qty === 0 ? { name, cents, qty } : { name, cents });
    left -= cents;
  }
  return lines;
}

function hotelLines(subtotal: number, checkout: string): ReceiptSpec['lines'] {
  const nights = Math.max(
    1,
    Math.min(7, Math.round(subtotal / 18_000), Math.floor(subtotal / 100)),
  );
  const rate = Math.floor(subtotal / nights);
  return Array.from({ length: nights }, (_, i) => ({
    name: `Room charge ${shopDate(`${checkout}T12:00:00Z`, nights - i)
      .slice(5)
      .replace('-', '/')}`,
    cents: i === nights - 1 ? subtotal - rate * (nights - 1) : rate,
  }));
}

function fuelLines(rng: Rng, subtotal: number): ReceiptSpec['lines'] {
  const perGallon = between(rng, 299, 499);
  const gallons = (subtotal / perGallon).toFixed(3);
  return [{ name: `Unleaded ${gallons} G @ ${(perGallon / 100).toFixed(3)}/G`, cents: subtotal }];
}

/** The lines under the header: who served, which folio, which invoice. */
function detailLines(rng: Rng, layout: ReceiptSpec['layout'], code: string, date: string) {
  if (layout === 'invoice') {
    return [
      `Invoice INV-${date.slice(0, 4)}-${between(rng, 1000, 9999)}`,
      'Bill to: Accounts Payable',
    ];
  }
  if (layout === 'folio') {
    const guest = `${pick(rng, PEOPLE)} ${pick(rng, list('K.|S.|P.'))}`;
    return [
      `Folio ${between(rng, 10_000, 99_999)}  Room ${between(rng, 101, 1220)}`,
      `Guest: ${guest}`,
    ];
  }
  if (code === '5541') return [`Pump ${between(rng, 1, 12)}`];
  if (RESTAURANTS.has(code)) {
    const server = `Server: ${pick(rng, PEOPLE)}  Table ${between(rng, 1, 40)}`;
    return [server, `Check #${between(rng, 1000, 9999)}`];
  }
  return [`Order #${between(rng, 10_000, 99_999)}`];
}

const TIPS = [
  [0.5, 'none'],
  [0.25, 'printed'],
  [0.25, 'blank'],
] as const;
const FORMATS = [
  [0.4, 'pdf'],
  [0.35, 'png'],
  [0.25, 'jpeg'],
] as const;
const twoDigits = (n: number) => String(n).padStart(2, '0');

/** A receipt for `tx` as its shop would have printed it; `rng` decides everything left open. */
export function specFor(tx: ReceiptTransaction, rng: Rng, options: SpecOptions = {}): ReceiptSpec {
  const code = tx.categoryCode ?? '';
  const kind = KINDS[code] ?? RETAIL;
  const descriptor = tx.merchant ?? tx.description;
  const { city, state } = descriptorName(descriptor);
  const amount = Math.abs(tx.amountCents);
  const restaurant = RESTAURANTS.has(code);
  const tip = options.tip ?? (restaurant ? weighted(rng, TIPS) : 'none');
  const beforeTip = tip === 'none' ? amount : Math.round(amount / (1 + 0.15 + rng() * 0.07));
  const taxRate = pick(rng, kind.taxes ?? TAX_RATES);
  const subtotal = Math.round(beforeTip / (1 + taxRate));
  const date = shopDate(tx.at, between(rng, 0, 3));
  const lines =
    code === '7011'
      ? hotelLines(subtotal, date)
      : code === '5541'
        ? fuelLines(rng, subtotal)
        : itemLines(rng, subtotal, kind);
  const layout = kind.layout ?? 'receipt';
  const format = options.format ?? weighted(rng, FORMATS);
  const spec: ReceiptSpec = {
    merchant: shopName(descriptor, kind, rng),
    address: `${between(rng, 10, 2999)} ${pick(rng, STREETS)}\n${city ?? 'Denver'}, ${state ?? 'CO'} ${between(rng, 10_001, 98_199)}`,
    date,
    dateStyle: pick(rng, ['us', 'us', 'us-short', 'iso', 'long'] as const),
    layout,
    lines,
    taxCents: beforeTip - subtotal,
    totalCents: tip === 'blank' ? beforeTip : amount,
    format,
  };
  if (taxRate > 0) {
    spec.taxLabel = kind.taxLabel ?? `Sales tax ${+(taxRate * 100).toFixed(3)}%`;
  }
  if (layout !== 'invoice') {
    spec.time = `${twoDigits(between(rng, restaurant ? 11 : 8, 21))}:${twoDigits(between(rng, 0, 59))}`;
  }
  if (tip !== 'none') spec.tipLine = tip;
  if (tip === 'printed') spec.tipCents = amount - beforeTip;
  if (tip === 'blank' && rng() < 0.5) spec.tipSuggestions = [18, 20, 22];
  spec.details = detailLines(rng, layout, code, date);
  if (rng() < 0.7)
    spec.cardLine = `${pick(rng, ['VISA', 'MASTERCARD', 'AMEX'])} ****${between(rng, 1000, 9999)}`;
  spec.footer =
    layout === 'invoice'
      ? 'Paid with card on file. Thank you for your business.'
      : pick(rng, ['THANK YOU!', 'Thank you, come again', 'Please keep this receipt']);
  if (format !== 'pdf') {
    if (rng() < 0.4)
      spec.rotateDeg = Math.round((rng() < 0.5 ? -1 : 1) * (2 + rng() * 4) * 10) / 10;
    if (rng() < 0.4) spec.noise = true;
    spec.scale = pick(rng, [1.5, 2]);
  }
  return spec;
}

// --- The page ----------------------------------------------------------------------------------

const money = (cents: number) =>
  (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');

function printedDate(spec: ReceiptSpec): string {
  const [y = '', m = '', d = ''] = spec.date.split('-');
  const style = spec.dateStyle ?? 'us';
  const day =
    style === 'iso'
      ? spec.date
      : style === 'long'
        ? `${MONTHS[Number(m) - 1]} ${Number(d)}, ${y}`
        : style === 'us-short'
          ? `${Number(m)}/${Number(d)}/${y.slice(2)}`
          : `${m}/${d}/${y}`;
  if (!spec.time) return day;
  if (style === 'iso') return `${day} ${spec.time}`;
  const [h = 0, min = 0] = spec.time.split(':').map(Number);
  return `${day}  ${((h + 11) % 12) + 1}:${String(min).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`;
}

/** A small stable number from the receipt's content: where its speckles fall. */
function contentSeed(spec: ReceiptSpec): number {
  let h = 0x811c9dc5;
  for (const c of `${spec.merchant}|${spec.date}|${spec.totalCents}`)
    h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return h >>> 0;
}

function receiptHtml(spec: ReceiptSpec): string {
  const e = (text: string) => escapeHtml(text);
  const row = (left: string, right: string, cls = '') =>
    `<div class="row ${cls}"><span>${e(left)}</span><span>${e(right)}</span></div>`;
  const layout = spec.layout ?? 'receipt';
  const totalLabel =
    layout === 'invoice' ? 'Amount due' : layout === 'folio' ? 'Balance due' : 'TOTAL';
  const subtotal = spec.lines.reduce((sum, l) => sum + l.cents, 0);
  const body = [
    `<div class="name">${e(spec.merchant)}</div>`,
    spec.address ? `<div class="center">${e(spec.address).replace('\n', '<br>')}</div>` : '',
    ...(spec.details ?? []).map((d) => `<div>${e(d)}</div>`),
    `<div>${e(printedDate(spec))}</div><hr>`,
    ...spec.lines.map((l) =>
      row(l.qty ? `${l.qty} x ${l.name} @ ${money(l.cents / l.qty)}` : l.name, money(l.cents)),
    ),
    '<hr>',
    row('Subtotal', money(subtotal)),
    spec.taxLabel ? row(spec.taxLabel, money(spec.taxCents)) : '',
    spec.tipLine === 'printed' ? row('Tip', money(spec.tipCents ?? 0)) : '',
    row(totalLabel, `${layout === 'receipt' ? '' : '$'}${money(spec.totalCents)}`, 'total'),
    spec.tipLine === 'blank'
      ? `${row('Tip:', '________')}${row('Total:', '________')}<div class="sign">x______________________</div>`
      : '',
    ...(spec.tipSuggestions ?? []).map((p) =>
      row(`Suggested ${p}%`, `${money(Math.round((spec.totalCents * p) / 100))}`, 'small'),
    ),
    spec.cardLine ? row(spec.cardLine, money(spec.totalCents)) : '',
    spec.footer ? `<div class="center foot">${e(spec.footer)}</div>` : '',
  ];
  const picture = spec.format !== 'pdf';
  const photo = picture && (spec.noise || spec.rotateDeg);
  let specks = '';
  if (picture && spec.noise) {
    let s = contentSeed(spec);
    const next = () => {
      s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
      return s / 2 ** 32;
    };
    for (let i = 0; i < 220; i++) {
      specks += `<i style="left:${(next() * 100).toFixed(2)}%;top:${(next() * 100).toFixed(2)}%;opacity:${(0.2 + next() * 0.6).toFixed(2)};width:${1 + Math.floor(next() * 2)}px"></i>`;
    }
  }
  const font =
    layout === 'invoice'
      ? "'DejaVu Sans', 'Liberation Sans', sans-serif"
      : "'DejaVu Sans Mono', monospace";
  const grain = `url("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='160' height='160'><filter id='n'><feTurbulence type='fractalNoise' baseFrequency='0.85' numOctaves='2' seed='${contentSeed(spec) % 997}'/></filter><rect width='100%' height='100%' filter='url(%23n)' opacity='0.22'/></svg>")`;
  return `<!doctype html><html><head><meta charset="utf-8"><style>
@page { margin: 0; }
html, body { margin: 0; background: ${photo ? '#6f6a63' : '#fff'}; }
#paper { width: ${layout === 'invoice' ? 520 : 380}px; box-sizing: border-box; padding: 22px 20px 28px;
  position: relative; overflow: hidden; background: #fff; color: #111; font: 13px/1.45 ${font};
  ${photo ? 'margin: 60px; box-shadow: 0 3px 10px rgba(0,0,0,.45);' : ''}
  ${spec.rotateDeg && picture ? `transform: rotate(${spec.rotateDeg}deg);` : ''}
  ${spec.noise && picture ? `background: #e2dfd8 ${grain}; filter: blur(0.45px) contrast(0.92);` : ''} }
.name { text-align: center; font-size: 18px; font-weight: bold; margin-bottom: 4px; }
.center { text-align: center; } .sign { margin-top: 18px; } .foot { margin-top: 14px; }
.row { display: flex; justify-content: space-between; gap: 12px; } .small { font-size: 11px; }
.total { font-weight: bold; font-size: 15px; margin-top: 4px; }
hr { border: 0; border-top: 1px dashed #444; margin: 8px 0; }
i { position: absolute; background: #222; border-radius: 50%; aspect-ratio: 1; }
</style></head><body><div id="paper">${body.join('\n')}${specks}</div></body></html>`;
}

const EXTENSIONS = { pdf: 'pdf', png: 'png', jpeg: 'jpg' } as const;
const MEDIA_TYPES = { pdf: 'application/pdf', png: 'image/png', jpeg: 'image/jpeg' } as const;
const INCH = 96;

/**
 * Straight through the DevTools protocol: half the time of page.setContent/pdf/screenshot (their
 * waits for load, fonts and stable layout add nothing to a static page of local fonts), and
 * an untagged PDF prints in half the time of a tagged one. Measured on a loaded 2-core machine.
 */
async function renderOne(cdp: Cdp, frameId: string, spec: ReceiptSpec): Promise<Buffer> {
  await cdp.send('Page.setDocumentContent', { frameId, html: receiptHtml(spec) });
  const { result } = await cdp.send('Runtime.evaluate', {
    expression: 'JSON.stringify(document.getElementById("paper").getBoundingClientRect())',
    returnByValue: true,
  });
  const box = JSON.parse(String(result.value)) as {
    x: number;
    y: number;
    width: number;
    height: number;
  };
  if (spec.format === 'pdf') {
    const invoice = spec.layout === 'invoice';
    const { data } = await cdp.send('Page.printToPDF', {
      printBackground: true,
      generateTaggedPDF: false,
      pageRanges: invoice ? '' : '1',
      paperWidth: invoice ? 8.5 : box.width / INCH,
      paperHeight: invoice ? 11 : (box.height + 2) / INCH,
      ...(invoice
        ? { marginTop: 0.6, marginLeft: 0.6 }
        : { marginTop: 0, marginBottom: 0, marginLeft: 0, marginRight: 0 }),
    });
    return Buffer.from(data, 'base64');
  }
  const margin = spec.rotateDeg || spec.noise ? 24 : 0;
  const x = Math.max(0, Math.floor(box.x - margin));
  const y = Math.max(0, Math.floor(box.y - margin));
  const { data } = await cdp.send('Page.captureScreenshot', {
    format: spec.format,
    ...(spec.format === 'jpeg' ? { quality: spec.noise ? 72 : 85 } : {}),
    clip: {
      x,
      y,
      width: Math.ceil(box.width + 2 * margin),
      height: Math.ceil(box.height + 2 * margin),
      scale: spec.scale ?? 2,
    },
    captureBeyondViewport: true,
  });
  return Buffer.from(data, 'base64');
}

type Cdp = Awaited<ReturnType<Awaited<ReturnType<Browser['newContext']>>['newCDPSession']>>;

/**
 * The files, in order (`receipt-001-the-harbor-cafe.pdf`, …), from one page reused for all of
 * them: a picture's scale factor is the capture's (`clip.scale`, rasterised at that scale, as
 * crisp as a context's `deviceScaleFactor`). A browser passed in stays open; one launched here
 * is closed.
 */
export async function renderReceipts(
  specs: ReceiptSpec[],
  options: { browser?: Browser } = {},
): Promise<{ fileName: string; mediaType: string; bytes: Buffer }[]> {
  const browser = options.browser ?? (await launchChromium());
  const context = await browser.newContext({
    viewport: { width: 700, height: 1400 },
    javaScriptEnabled: false,
  });
  try {
    const cdp = await context.newCDPSession(await context.newPage());
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const files: { fileName: string; mediaType: string; bytes: Buffer }[] = [];
    for (const [i, spec] of specs.entries()) {
      const slug = spec.merchant
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
      files.push({
        fileName: `receipt-${String(i + 1).padStart(3, '0')}-${slug}.${EXTENSIONS[spec.format]}`,
        mediaType: MEDIA_TYPES[spec.format],
        bytes: await renderOne(cdp, frameTree.frame.id, spec),
      });
    }
    return files;
  } finally {
    await context.close();
    if (!options.browser) await browser.close();
  }
}
