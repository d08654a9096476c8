import { createCardService } from '@card-console/card-service-sim';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../../web/e2e/support/browser';
import {
  type Browser,
  descriptorName,
  type ReceiptTransaction,
  renderReceipts,
  specFor,
} from './make-receipt';

const SEED = 47;
const DAY_MS = 86_400_000;
const RESTAURANTS = ['5812', '5813', '5814'];

function mulberry32(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The simulator's card payments, as the BFF's index keeps them. */
function demoTransactions(seed: number): ReceiptTransaction[] {
  const sim = createCardService({ seed, transactions: 4000 });
  return sim.data
    .subAccounts()
    .flatMap((account) => sim.data.transactions(account.id))
    .flatMap((t) =>
      t.merchantData && t.amountCents < 0
        ? [
            {
              description: t.description,
              merchant: t.merchantData.description,
              categoryCode: t.merchantData.categoryCode,
              amountCents: t.amountCents,
              at: t.date,
            },
          ]
        : [],
    );
}

describe(`specFor, on the simulator's card payments (seed ${SEED})`, () => {
  const rng = mulberry32(SEED);
  const made = demoTransactions(SEED).map((tx) => ({ tx, spec: specFor(tx, rng) }));
  const restaurant = made.filter(({ tx }) => RESTAURANTS.includes(tx.categoryCode ?? ''));
  const size = (tx: ReceiptTransaction) => Math.abs(tx.amountCents);

  it('covers every kind of receipt it claims to', () => {
    expect(made.length).toBeGreaterThan(2000);
    const tips = restaurant.map(({ spec }) => spec.tipLine ?? 'none');
    for (const tip of ['none', 'printed', 'blank']) {
      expect(tips.filter((t) => t === tip).length).toBeGreaterThan(restaurant.length / 6);
    }
    const formats = made.map(({ spec }) => spec.format);
    const share = (f: string) => formats.filter((x) => x === f).length / formats.length;
    expect(share('pdf')).toBeCloseTo(0.4, 1);
    expect(share('png')).toBeCloseTo(0.35, 1);
    expect(share('jpeg')).toBeCloseTo(0.25, 1);
    const pictures = made.filter(({ spec }) => spec.format !== 'pdf');
    expect(pictures.some(({ spec }) => spec.rotateDeg)).toBe(true);
    expect(pictures.some(({ spec }) => spec.noise)).toBe(true);
  });

  it('prints lines, tax and a printed tip that add up to its total', () => {
    for (const { spec } of made) {
      const lines = spec.lines.reduce((sum, line) => sum + line.cents, 0);
      expect(lines + spec.taxCents + (spec.tipCents ?? 0)).toBe(spec.totalCents);
      for (const line of spec.lines) {
        expect(line.cents).toBeGreaterThan(0);
        if (line.qty) expect(line.cents % line.qty).toBe(0);
      }
    }
  });

  it('prints the card amount, except on a slip signed before the tip', () => {
    for (const { tx, spec } of made) {
      if (spec.tipLine === 'blank') {
        expect(RESTAURANTS).toContain(tx.categoryCode);
        expect(spec.totalCents).toBeLessThan(size(tx));
        expect(spec.totalCents).toBeGreaterThan(size(tx) / 1.25);
      } else {
        expect(spec.totalCents).toBe(size(tx));
      }
      if (spec.tipLine === 'printed') {
        const rate = (spec.tipCents ?? 0) / (spec.totalCents - (spec.tipCents ?? 0));
        expect(rate).toBeGreaterThanOrEqual(0.149);
        expect(rate).toBeLessThanOrEqual(0.221);
      }
    }
  });

  it("names the shop as it writes itself, never as the card's descriptor", () => {
    for (const { tx, spec } of made) {
      expect(spec.merchant).not.toBe(tx.merchant);
      expect(spec.merchant).not.toMatch(/\*|^(SQ|TST|PAYPAL)\b/i);
      // The simulator's description is the shop's own name; the city and state are gone.
      expect(spec.merchant.toLowerCase()).toContain(tx.description.toLowerCase());
      const { city = '' } = descriptorName(tx.merchant ?? '');
      expect(city).not.toBe('');
      expect(spec.merchant.toLowerCase()).not.toContain(city.toLowerCase());
    }
  });

  it('is dated 0–3 days before the posting', () => {
    for (const { tx, spec } of made) {
      const days = (Date.parse(tx.at.slice(0, 10)) - Date.parse(spec.date)) / DAY_MS;
      expect(days).toBeGreaterThanOrEqual(0);
      expect(days).toBeLessThanOrEqual(3);
    }
  });

  it('reads descriptors with and without a processor and a city', () => {
    expect(descriptorName('SQ *HARBOR CAFE SAN FRANCISCO CA')).toEqual({
      name: 'HARBOR CAFE',
      city: 'San Francisco',
      state: 'CA',
    });
    expect(descriptorName('TST* GOLDEN BISTRO')).toEqual({ name: 'GOLDEN BISTRO' });
    expect(descriptorName('PAYPAL *CEDAR CLOUD')).toEqual({ name: 'CEDAR CLOUD' });
    expect(descriptorName('RED ROCK PAPER CO DENVER CO').name).toBe('RED ROCK PAPER CO');
    expect(descriptorName('SILVER PAPER CO').name).toBe('SILVER PAPER CO');
  });
});

function pictureSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  expect(bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
  for (let at = 2; at < bytes.length; at += 2 + bytes.readUInt16BE(at + 2)) {
    if (bytes[at + 1] === 0xc0 || bytes[at + 1] === 0xc2) {
      return { width: bytes.readUInt16BE(at + 7), height: bytes.readUInt16BE(at + 5) };
    }
  }
  throw new Error('no frame header');
}

async function pdfText(bytes: Buffer): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), {
    mergePages: true,
  });
  return text;
}

describe('renderReceipts', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  const cafe: ReceiptTransaction = {
    description: 'Harbor Cafe',
    merchant: 'SQ *HARBOR CAFE SAN FRANCISCO CA',
    categoryCode: '5812',
    amountCents: -1288,
    at: '2026-03-14T19:05:00.000Z',
  };

  it('makes a PDF whose text layer holds the shop and the total, and two pictures', async () => {
    const rng = mulberry32(SEED);
    const specs = (['pdf', 'png', 'jpeg'] as const).map((format) =>
      specFor(cafe, rng, { format, tip: 'none' }),
    );
    const [pdf, png, jpeg] = await renderReceipts(specs, { browser });

    expect(pdf?.mediaType).toBe('application/pdf');
    expect(pdf?.fileName).toMatch(/^receipt-001-.+\.pdf$/);
    expect(pdf?.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await pdfText(pdf?.bytes ?? Buffer.alloc(0));
    expect(text).toContain('12.88');
    expect(text).toContain(specs[0]?.merchant);

    for (const [file, type] of [
      [png, 'image/png'],
      [jpeg, 'image/jpeg'],
    ] as const) {
      expect(file?.mediaType).toBe(type);
      const { width, height } = pictureSize(file?.bytes ?? Buffer.alloc(0));
      // 380 CSS pixels wide at 1.5–2 pixels each, with a margin when turned or speckled.
      expect(width).toBeGreaterThanOrEqual(570);
      expect(width).toBeLessThan(1100);
      expect(height).toBeGreaterThan(300);
      expect(file?.bytes.length).toBeGreaterThan(10_000);
    }
  });

  it('prints what a hotel and a software vendor call the total', async () => {
    const rng = mulberry32(SEED);
    const hotel = {
      ...cafe,
      merchant: 'OAK INN DENVER CO',
      categoryCode: '7011',
      amountCents: -45_210,
    };
    const software = { ...cafe, merchant: 'PAYPAL *CEDAR CLOUD', categoryCode: '5734' };
    const files = await renderReceipts(
      [specFor(hotel, rng, { format: 'pdf' }), specFor(software, rng, { format: 'pdf' })],
      { browser },
    );
    const [folio, invoice] = await Promise.all(files.map((f) => pdfText(f.bytes)));
    expect(folio).toMatch(/Balance due \$452\.10/);
    expect(invoice).toMatch(/Amount due \$12\.88/);
  });
});
