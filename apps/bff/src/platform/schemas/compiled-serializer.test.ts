import { type CardService, createCardService } from '@card-console/card-service-sim';
import { type Card, cardPageSchema, cardSchema } from '@card-console/shared/api/cards';
import { type SubAccount, subAccountPageSchema } from '@card-console/shared/api/sub-accounts';
import {
  type Transaction,
  transactionPageSchema,
  transactionSchema,
} from '@card-console/shared/api/transactions';
import { cardStatuses, upstreamCardSchema } from '@card-console/shared/upstream/card';
import { upstreamSubAccountSchema } from '@card-console/shared/upstream/sub-account';
import {
  transactionStatuses,
  upstreamTransactionSchema,
} from '@card-console/shared/upstream/transaction';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { toApiCard } from '../../features/cards/card-mapper';
import { toApiSubAccount } from '../../features/sub-accounts/sub-account-mapper';
import { toApiTransaction } from '../../features/transactions/transaction-mapper';
import { withCheckDigit } from '../../test/reference-luhn';
import { compileSerializer } from './compiled-serializer';

/** A card number made here (it passes Luhn), never a literal in the source. */
const STRAY_PAN = withCheckDigit('555555123456700');

// The compiled serializer (fast-json-stringify, compiled from the API schema) writes the same
// JSON as JSON.stringify of what zod makes of the value, and never a field the schema does
// not declare.
const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`compiled serializer: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

const schemas = {
  cardPageSchema,
  cardSchema,
  subAccountPageSchema,
  transactionPageSchema,
  transactionSchema,
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof schemas;
const schemaNames = Object.keys(schemas) as SchemaName[];

const serializers = Object.fromEntries(
  schemaNames.map((name) => [name, compileSerializer(schemas[name] as z.ZodType)]),
) as Record<SchemaName, (value: unknown) => string>;

/** What the response would be with JSON.stringify: zod's output, written by the platform. */
const reference = (name: SchemaName, value: unknown) =>
  JSON.parse(JSON.stringify(schemas[name].parse(value)));

function expectSameJson(name: SchemaName, value: unknown) {
  const text = serializers[name](value);
  expect(JSON.parse(text)).toStrictEqual(reference(name, value));
  return text;
}

// ---- values from the simulator, through the BFF's mappers --------------------------------

let sim: CardService;
let cards: Card[];
let subAccounts: SubAccount[];
let transactions: Transaction[];
/** Each card's PAN and CVV, as the service holds them. */
let secrets: Array<{ pan: string; cvv: string }>;

beforeAll(() => {
  sim = createCardService({ apiKey: 'k', rateLimit: false, transactions: 300 });
  const withSecrets = sim.data.cards().map((c) => sim.data.card(c.id));
  secrets = withSecrets.map((c) => ({ pan: String(c?.pan), cvv: String(c?.cvv) }));
  // Checked as the BFF checks an answer, then mapped: PAN and CVV included in the upstream card.
  cards = withSecrets.map((c) => toApiCard(upstreamCardSchema.parse(c)));
  subAccounts = sim.data
    .subAccounts()
    .map((s) => toApiSubAccount(upstreamSubAccountSchema.parse(s)));
  transactions = sim.data
    .subAccounts()
    .flatMap((s) => sim.data.transactions(s.id))
    .map((t) => toApiTransaction(upstreamTransactionSchema.parse(t)));
  expect(cards.length).toBeGreaterThan(10);
  expect(cards.some((c) => c.utilizationLimit)).toBe(true);
  expect(secrets.every((s) => /^\d{12,19}$/.test(s.pan) && /^\d{3,4}$/.test(s.cvv))).toBe(true);
  expect(transactions.length).toBe(300);
  expect(transactions.some((t) => t.originalCurrency)).toBe(true);
  expect(transactions.some((t) => t.merchant)).toBe(true);
  expect(transactions.some((t) => t.declineReason)).toBe(true);
});

afterAll(async () => {
  await sim?.close();
});

// ---- generated values --------------------------------------------------------------------

const trickyChar = fc.oneof(
  fc.constantFrom(
    '"',
    '\\',
    '/',
    '\b',
    '\f',
    '\n',
    '\r',
    '\t',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u2028',
    '\u2029',
    '😀',
    '👩‍👩‍👧',
    '\ud800',
    '\udbff',
    '\udc00',
    '\udfff',
    '</script>',
    'é',
  ),
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const text = fc.oneof(
  fc.string({ unit: trickyChar, maxLength: 12 }),
  fc.string({ maxLength: 16 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    '0',
    '"quoted"',
    'back\\slash',
    '\\"',
    '\\u0000',
    '2024-01-01T00:00:00.000Z',
  ),
);
const cents = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    99,
    2 ** 31,
    -(2 ** 31),
    2 ** 32,
    1e15,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
  ),
  fc.integer(),
  fc.maxSafeInteger(),
);
const rate = fc.oneof(
  fc.constantFrom(0, -0, 0.006619, 1.256919, 1e-7, 5e-324, 1e21, 123456789.12345679, -2.5),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const genCard: fc.Arbitrary<Card> = fc.record(
  {
    id: text,
    last4: text,
    name: text,
    expiryMonth: text,
    expiryYear: text,
    status: fc.constantFrom(...cardStatuses),
    createdAt: text,
    utilizationLimit: fc.record(
      { preset: text, timezone: text, limitCents: cents, startDate: text },
      { requiredKeys: [] },
    ),
    transactionSizeLimit: fc.record(
      { minimumCents: cents, maximumCents: cents },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['id', 'last4', 'name', 'status', 'transactionSizeLimit'] },
);
const genSubAccount: fc.Arbitrary<SubAccount> = fc.record(
  { id: text, name: text, balanceCents: cents, spendCents: cents },
  { requiredKeys: ['id', 'name'] },
);
const genTransaction: fc.Arbitrary<Transaction> = fc.record(
  {
    id: text,
    date: text,
    description: text,
    amountCents: cents,
    status: fc.constantFrom(...transactionStatuses),
    referenceNumber: text,
    authorizedAt: text,
    createdAt: text,
    merchant: fc.record({ description: text, categoryCode: text }),
    cardId: text,
    originalCurrency: fc.record(
      { code: text, amountCents: cents, conversionRate: rate },
      { requiredKeys: [] },
    ),
    declineReason: text,
  },
  { requiredKeys: ['id', 'date', 'description', 'amountCents', 'status', 'referenceNumber'] },
);

/** A real mapped value, or a generated one, or a real one with some fields generated. */
function variations<T extends object>(real: () => T[], generated: fc.Arbitrary<T>) {
  return fc.oneof(
    fc.constantFrom(...real()),
    generated,
    fc
      .tuple(fc.constantFrom(...real()), generated, fc.array(fc.nat(), { maxLength: 4 }))
      .map(([base, gen, picks]) => {
        // Some top-level fields of the generated value over the real one.
        const keys = Object.keys(gen) as Array<keyof T>;
        const out = structuredClone(base);
        for (const p of picks) {
          const key = keys[p % keys.length];
          if (key !== undefined) out[key] = gen[key];
        }
        return out;
      }),
  );
}

/**
 * An optional field present but `undefined` (as a careless mapper might leave it): written by
 * neither.
 */
function withUndefined<T>(value: T, picks: number[], optional: string[]): T {
  const out = structuredClone(value) as Record<string, unknown>;
  for (const p of picks) out[optional[p % optional.length] as string] = undefined;
  return out as T;
}

const marker = (where: string) => `EXTRA-${where}-${STRAY_PAN}-MARKER`;

/** The value with undeclared fields (a PAN, a CVV, …) on every object in it. */
function withExtras(value: unknown, pan?: string): unknown {
  const out = structuredClone(value);
  let n = 0;
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      for (const child of Object.values(obj)) visit(child);
      obj.pan = pan ?? marker(`pan${n}`);
      obj.cvv = marker(`cvv${n}`);
      obj.internalNote = marker(`note${n}`);
      Object.defineProperty(obj, '__proto__', {
        value: { polluted: marker(`proto${n}`) },
        enumerable: true,
        writable: true,
        configurable: true,
      });
      n++;
    }
  };
  visit(out);
  return out;
}

function expectNoExtras(name: SchemaName, value: unknown, secret?: { pan: string }) {
  const dirty = withExtras(value, secret?.pan);
  const out = expectSameJson(name, dirty);
  expect(out).not.toContain('-MARKER');
  // As a key (a string value is never followed by a colon; a colon inside one is escaped).
  expect(out).not.toContain('"pan":');
  expect(out).not.toContain('"cvv":');
  expect(out).not.toContain('"internalNote":');
  expect(out).not.toContain('"__proto__":');
  if (secret) expect(out).not.toContain(secret.pan);
  // Nothing undeclared, and the declared fields as they were.
  expect(JSON.parse(out)).toStrictEqual(reference(name, value));
}

const page = <T>(item: fc.Arbitrary<T>) =>
  fc.record(
    { items: fc.array(item, { maxLength: 5 }), nextCursor: text },
    { requiredKeys: ['items'] },
  );

// ---- tests -------------------------------------------------------------------------------

describe('compileSerializer', () => {
  it('writes every real card, sub account and transaction as JSON.stringify does', () => {
    for (const card of cards) expectSameJson('cardSchema', card);
    expectSameJson('cardPageSchema', { items: cards, nextCursor: 'WyJjYXJkIl0.abc' });
    expectSameJson('cardPageSchema', { items: cards.slice(0, 3) });
    expectSameJson('cardPageSchema', { items: [] });
    expectSameJson('subAccountPageSchema', { items: subAccounts });
    expectSameJson('subAccountPageSchema', { items: subAccounts, nextCursor: 'c' });
    for (const t of transactions) expectSameJson('transactionSchema', t);
    for (let i = 0; i < transactions.length; i += 50) {
      expectSameJson('transactionPageSchema', {
        items: transactions.slice(i, i + 50),
        nextCursor: `cursor-${i}`,
      });
    }
  });

  it('never writes a PAN, a CVV or any other undeclared field of a real value', () => {
    cards.forEach((card, i) => {
      expectNoExtras('cardSchema', card, secrets[i]);
    });
    expectNoExtras('cardPageSchema', { items: cards, nextCursor: 'c' });
    expectNoExtras('subAccountPageSchema', { items: subAccounts });
    for (const t of transactions.slice(0, 60)) expectNoExtras('transactionSchema', t);
    expectNoExtras('transactionPageSchema', { items: transactions.slice(0, 50), nextCursor: 'c' });
  });

  const cardOptional = ['expiryMonth', 'expiryYear', 'createdAt', 'utilizationLimit'];
  const txOptional = [
    'authorizedAt',
    'createdAt',
    'merchant',
    'cardId',
    'originalCurrency',
    'declineReason',
  ];
  const properties: Record<SchemaName, () => fc.Arbitrary<unknown>> = {
    cardSchema: () => variations(() => cards, genCard),
    cardPageSchema: () => page(variations(() => cards, genCard)),
    subAccountPageSchema: () => page(variations(() => subAccounts, genSubAccount)),
    transactionSchema: () => variations(() => transactions, genTransaction),
    transactionPageSchema: () => page(variations(() => transactions, genTransaction)),
  };
  const optionalOf: Record<SchemaName, string[]> = {
    cardSchema: cardOptional,
    cardPageSchema: ['nextCursor'],
    subAccountPageSchema: ['nextCursor'],
    transactionSchema: txOptional,
    transactionPageSchema: ['nextCursor'],
  };

  it.each(schemaNames)(
    '%s: writes what JSON.stringify writes of zod’s output (property)',
    (name) => {
      fc.assert(
        fc.property(
          properties[name](),
          fc.array(fc.nat(), { maxLength: 2 }),
          fc.boolean(),
          (value, undefinedPicks, extras) => {
            const v = withUndefined(value, undefinedPicks, optionalOf[name]);
            expectSameJson(name, v);
            if (extras) expectNoExtras(name, v);
          },
        ),
        { seed, numRuns: 300 },
      );
    },
  );
});
