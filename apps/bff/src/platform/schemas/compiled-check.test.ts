import { type CardService, createCardService } from '@card-console/card-service-sim';
import { upstreamCardSchema } from '@card-console/shared/upstream/card';
import { listEnvelopeSchema } from '@card-console/shared/upstream/common';
import {
  upstreamSubAccountCreatedSchema,
  upstreamSubAccountSchema,
} from '@card-console/shared/upstream/sub-account';
import { upstreamTransactionSchema } from '@card-console/shared/upstream/transaction';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withCheckDigit } from '../../test/reference-luhn';
import { compileCheck, isCompiled } from './compiled-check';

/** A card number made here (it passes Luhn), never a literal in the source. */
const STRAY_PAN = withCheckDigit('555555123456700');

// The compiled check (Ajv, compiled from the zod schema) means exactly what zod means: real
// upstream answers from the simulator, mutated at random paths, are accepted by one exactly
// when they are accepted by the other, with the same data (unknown fields dropped) and, on a
// refusal, the same issues.
const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`compiled check: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

/** Every upstream answer schema the BFF checks, built as apps/bff/src/upstream/client.ts does. */
const schemas = {
  'listEnvelopeSchema(upstreamCardSchema)': listEnvelopeSchema(upstreamCardSchema),
  upstreamCardSchema,
  'listEnvelopeSchema(upstreamSubAccountSchema)': listEnvelopeSchema(upstreamSubAccountSchema),
  upstreamSubAccountCreatedSchema,
  'listEnvelopeSchema(upstreamTransactionSchema)': listEnvelopeSchema(upstreamTransactionSchema),
  upstreamTransactionSchema,
  'z.array(upstreamTransactionSchema)': z.array(upstreamTransactionSchema),
  'listEnvelopeSchema(z.unknown())': listEnvelopeSchema(z.unknown()),
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof schemas;
const schemaNames = Object.keys(schemas) as SchemaName[];

/** Real answers of the simulator, per schema. */
const samples = Object.fromEntries(schemaNames.map((n) => [n, [] as unknown[]])) as Record<
  SchemaName,
  unknown[]
>;

let sim: CardService;

beforeAll(async () => {
  sim = createCardService({ apiKey: 'k', rateLimit: false, transactions: 300 });
  const { url } = await sim.listen(0);
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${url}${path}`, {
      ...init,
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
    });
    expect(res.status, path).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown> & {
      items: Array<Record<string, unknown> & { id: string }>;
      metadata: { nextCursor?: string };
    };
  };
  /** Every page of a list, first to last. */
  const pages = async (path: string, max = 3) => {
    const out = [];
    let cursor: string | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page = await call(cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path);
      out.push(page);
      cursor = page.metadata.nextCursor;
    } while (cursor && out.length < max);
    return out;
  };

  const cardPages = await pages('/card');
  samples['listEnvelopeSchema(upstreamCardSchema)'].push(...cardPages);
  const cards = cardPages.flatMap((p) => p.items);
  samples.upstreamCardSchema.push(...cards);
  for (const card of cards.slice(0, 6))
    samples.upstreamCardSchema.push(await call(`/card/${card.id}`));
  for (const card of cards.slice(6, 8)) {
    samples.upstreamCardSchema.push(
      await call(`/card/${card.id}?include_pan=true&include_cvv=true`),
    );
  }

  const subPages = await pages('/sub-account');
  samples['listEnvelopeSchema(upstreamSubAccountSchema)'].push(...subPages);
  for (const name of ['Travel', 'Events "2025"']) {
    samples.upstreamSubAccountCreatedSchema.push(
      await call('/sub-account', { method: 'POST', body: JSON.stringify({ name }) }),
    );
  }

  for (const sub of subPages.flatMap((p) => p.items).slice(0, 4)) {
    const txPages = await pages(`/transaction?subAccountId=${sub.id}`, 2);
    samples['listEnvelopeSchema(upstreamTransactionSchema)'].push(...txPages);
    samples['listEnvelopeSchema(z.unknown())'].push(...txPages);
    for (const page of txPages) {
      samples['z.array(upstreamTransactionSchema)'].push(page.items, page.items.slice(0, 3), []);
      samples.upstreamTransactionSchema.push(...page.items);
    }
  }
  const someTx = samples.upstreamTransactionSchema.slice(0, 4) as Array<{ id: string }>;
  for (const tx of someTx)
    samples.upstreamTransactionSchema.push(await call(`/transaction/${tx.id}`));

  // Every answer really is valid, so a mutation starts from the real thing.
  for (const name of schemaNames) {
    expect(samples[name].length, name).toBeGreaterThan(0);
    for (const sample of samples[name]) expect(schemas[name].safeParse(sample).success).toBe(true);
  }
});

const tally = new Map<string, { fast: number; zodAccepted: number; refused: number }>();
afterAll(async () => {
  console.log('compiled check: outcomes', Object.fromEntries(tally));
  await sim?.close();
});

// ---- random mutations ------------------------------------------------------------------

type Path = Array<string | number>;
type Container = Record<string, unknown> | unknown[];

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isContainer = (v: unknown): v is Container => v !== null && typeof v === 'object';

/** An own, enumerable data property, as JSON.parse makes it (`__proto__` included). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

const childKeys = (v: Container): Array<string | number> =>
  Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);

const get = (root: unknown, path: Path): unknown =>
  path.reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown> | undefined)?.[key],
    root,
  );

/** A path chosen by walking down: each step picks a child, until the steps or the tree end. */
function walk(root: unknown, steps: number[]): Path {
  const path: Path = [];
  let node = root;
  for (const step of steps) {
    if (!isContainer(node)) break;
    const keys = childKeys(node);
    if (keys.length === 0) break;
    const key = keys[step % keys.length] as string | number;
    path.push(key);
    node = (node as Record<string | number, unknown>)[key];
  }
  return path;
}

/** Every path to a string in the value. */
function stringPaths(v: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (typeof v === 'string') out.push(path);
  else if (isContainer(v))
    for (const k of childKeys(v)) stringPaths(get(v, [k]), [...path, k], out);
  return out;
}

type Mutation =
  | { kind: 'delete'; steps: number[] }
  | { kind: 'addKey'; steps: number[]; key: string; value: unknown }
  | { kind: 'replace'; steps: number[]; value: unknown }
  | { kind: 'string'; pick: number; value: string };

/** Applies one mutation in place (the root may be replaced: the new root is returned). */
function mutate(root: unknown, m: Mutation): unknown {
  if (m.kind === 'string') {
    const paths = stringPaths(root);
    if (paths.length === 0) return root;
    return setAt(root, paths[m.pick % paths.length] as Path, m.value);
  }
  const path = walk(root, m.steps);
  if (m.kind === 'replace') return setAt(root, path, structuredClone(m.value));
  if (m.kind === 'delete') {
    if (path.length === 0) return root;
    const parent = get(root, path.slice(0, -1)) as Container;
    const key = path[path.length - 1] as string | number;
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key as string];
    return root;
  }
  // addKey: on the deepest object on the path.
  for (let depth = path.length; depth >= 0; depth--) {
    const node = get(root, path.slice(0, depth));
    if (isObject(node)) {
      setOwn(node, m.key, structuredClone(m.value));
      break;
    }
  }
  return root;
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = get(root, path.slice(0, -1)) as Record<string | number, unknown>;
  const key = path[path.length - 1] as string | number;
  if (Array.isArray(parent)) parent[key as number] = value;
  else setOwn(parent, key as string, value);
  return root;
}

const trickyStrings = [
  '',
  ' ',
  '0',
  '12345',
  '123',
  '١٢٣٤',
  '１２３４',
  '12a4',
  '1234\n',
  '\n1234',
  ' 1234',
  '123٤',
  '😀',
  '😀😀',
  '\ud83d',
  '\ude00',
  'a\ud800b',
  '\u0000',
  '\u2028',
  '"',
  '\\',
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-02-29T00:00:00Z',
  '2100-02-29T00:00:00Z',
  '2000-02-29T00:00:00Z',
  '2024-04-31T00:00:00Z',
  '2024-01-01T00:00:00',
  '2024-01-01T00:00:00+05:30',
  '2024-01-01T00:00:00-05:30',
  '2024-01-01T00:00:00+0530',
  '2024-01-01T00:00:00+05',
  '2024-01-01T00:00:00+24:00',
  '2024-01-01T00:00:00.123+05:30',
  '2024-01-01t00:00:00Z',
  '2024-01-01T00:00:00z',
  '2024-01-01 00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T23:59:60Z',
  '2024-01-01T00:00:00.123456789Z',
  '2024-01-01T00:00:00.Z',
  '2024-01-01T00:00Z',
  '2024-01-01',
  '+002024-01-01T00:00:00Z',
  '2024-13-01T00:00:00Z',
  '2024-1-01T00:00:00Z',
  '2024-01-01T00:00:00Z\n',
  '٢٠٢٤-01-01T00:00:00Z',
  '2024-01-01T00:00:00.000Z',
  'active',
  'paused',
  'inactive',
  'closed',
  'ACTIVE',
  'Active',
  'active ',
  'settled',
  'pending',
  'refund',
  'refunded',
  'declined',
  'unknown',
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
];

const trickyChar = fc.oneof(
  fc.constantFrom('"', '\\', '\u2028', '\u2029', '\u0000', '\n', '😀', '١', '７', 'é', 'e\u0301'),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const stringValue = fc.oneof(
  fc.constantFrom(...trickyStrings),
  fc.string({ unit: trickyChar, maxLength: 8 }),
  fc.string({ maxLength: 12 }),
  fc.stringMatching(/^\d{4}$/),
  fc
    .date({ min: new Date('1970-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString()),
);

const oddNumbers = [
  0,
  -0,
  1,
  -1,
  0.5,
  -1.5,
  1e-7,
  5e-324,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  1e21,
  -1e21,
  Number.MAX_VALUE,
];
const numberValue = fc.oneof(
  fc.constantFrom(...oddNumbers),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const weirdKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'pan',
    'cvv',
    'extra',
    '',
    ' ',
    'id ',
    'ID',
    'Status',
    'length',
    '0',
    'amount_cents',
    'spendingrule',
  ),
  fc.string({ maxLength: 8 }),
);

/** Values of every JSON type (and JSON-like shapes with unknown keys, `__proto__` included). */
const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberValue,
    stringValue,
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom<unknown>([], {}, [1], ['a'], [{}], [null]),
    fc.record({ amountCents: numberValue }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.tuple(weirdKey, tie('value')).map(([k, v]) => {
      const o: Record<string, unknown> = {};
      setOwn(o, k, v);
      return o;
    }),
    fc.jsonValue({ maxDepth: 2 }),
  ),
})).value;

const steps = fc.array(fc.nat(), { maxLength: 8 });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), steps }),
  fc.record({ kind: fc.constant('addKey' as const), steps, key: weirdKey, value: anyValue }),
  fc.record({ kind: fc.constant('replace' as const), steps, value: anyValue }),
  fc.record({ kind: fc.constant('string' as const), pick: fc.nat(), value: stringValue }),
);

/** A real answer of the schema, changed by a few mutations (or none). */
const mutated = (name: SchemaName) =>
  fc
    .tuple(fc.constantFrom(...samples[name]), fc.array(mutation, { maxLength: 4 }))
    .map(([sample, mutations]) => {
      let value = structuredClone(sample);
      for (const m of mutations) value = mutate(value, m);
      return value;
    });

// ---- tests -------------------------------------------------------------------------------

describe('compileCheck', () => {
  it.each(schemaNames)('compiles %s (Ajv, not zod, checks the common case)', (name) => {
    expect(isCompiled(schemas[name])).toBe(true);
  });

  it.each(schemaNames)(
    'means what zod means for %s, on mutated real answers (property)',
    (name) => {
      const schema: z.ZodType = schemas[name];
      const check = compileCheck(schema);
      const count = { fast: 0, zodAccepted: 0, refused: 0 };
      tally.set(name, count);
      fc.assert(
        fc.property(mutated(name), (value) => {
          const input = structuredClone(value);
          const compiled = check(input);
          const expected = schema.safeParse(structuredClone(value));
          expect(compiled.success).toBe(expected.success);
          if (compiled.success && expected.success) {
            // toEqual, not toStrictEqual: an own `constructor` key would make the latter compare
            // those values by identity.
            expect(compiled.data).toEqual(expected.data);
            if (compiled.data === input) count.fast++;
            else count.zodAccepted++;
          } else {
            count.refused++;
            // The refusal is zod's own (Ajv only deleted fields zod ignores anyway).
            expect(compiled.error?.issues).toEqual(expected.error?.issues);
          }
        }),
        { seed, numRuns: 400 },
      );
      // Both sides of the check were exercised.
      expect(count.fast).toBeGreaterThan(0);
      expect(count.refused).toBeGreaterThan(0);
    },
  );

  it('removes unknown keys at every level, in place, as zod strips them', () => {
    const schema = listEnvelopeSchema(upstreamCardSchema);
    const card = (samples.upstreamCardSchema as Array<Record<string, unknown>>).find((c) =>
      get(c, ['spendingConstraint', 'spendingRule', 'utilizationLimit', 'limitAmount']),
    );
    expect(card).toBeDefined();
    const clean = { items: [structuredClone(card)], metadata: { count: 1, nextCursor: 'abc' } };
    const dirty = structuredClone(clean) as Record<string, unknown>;
    const objectPaths: Path[] = [
      [],
      ['metadata'],
      ['items', 0],
      ['items', 0, 'spendingConstraint'],
      ['items', 0, 'spendingConstraint', 'spendingRule'],
      ['items', 0, 'spendingConstraint', 'spendingRule', 'utilizationLimit'],
      ['items', 0, 'spendingConstraint', 'spendingRule', 'utilizationLimit', 'limitAmount'],
      ['items', 0, 'spendingConstraint', 'spendingRule', 'transactionSizeLimit'],
      ['items', 0, 'spendingConstraint', 'spendingRule', 'transactionSizeLimit', 'maximum'],
    ];
    for (const path of objectPaths) {
      const node = get(dirty, path) as Record<string, unknown>;
      expect(isObject(node), path.join('.')).toBe(true);
      setOwn(node, 'unknownField', { nested: 'x' });
      setOwn(node, '__proto__', { polluted: true });
      setOwn(node, 'constructor', 'x');
    }
    const expected = schema.parse(structuredClone(dirty));
    const result = compileCheck(schema)(dirty);
    expect(result.success).toBe(true);
    // Checked by Ajv, not zod: the very value given, cleaned in place.
    expect(result.data).toBe(dirty);
    expect(result.data).toStrictEqual(clean);
    expect(result.data).toStrictEqual(expected);
    for (const path of objectPaths) {
      const node = get(result.data, path) as object;
      expect(Object.keys(node)).not.toContain('unknownField');
      expect(Object.hasOwn(node, '__proto__')).toBe(false);
      expect(Object.hasOwn(node, 'constructor')).toBe(false);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // A transaction's nested objects too.
    const tx = (samples.upstreamTransactionSchema as Array<Record<string, unknown>>).find(
      (t) => t.originalCurrency && t.merchantData,
    );
    expect(tx).toBeDefined();
    const dirtyTx = structuredClone(tx) as Record<string, unknown>;
    for (const path of [[], ['merchantData'], ['originalCurrency']] as Path[]) {
      setOwn(get(dirtyTx, path) as Record<string, unknown>, 'pan', STRAY_PAN);
    }
    const txResult = compileCheck(upstreamTransactionSchema)(dirtyTx);
    expect(txResult.success && txResult.data).toBe(dirtyTx);
    expect(JSON.stringify(dirtyTx)).not.toContain(STRAY_PAN);
    expect(dirtyTx).toStrictEqual(tx);
  });

  it("refuses with zod's issues, which name the path", () => {
    const schema = listEnvelopeSchema(upstreamCardSchema);
    const page = structuredClone(samples['listEnvelopeSchema(upstreamCardSchema)'][0]) as {
      items: Array<Record<string, unknown>>;
    };
    page.items[2] = { ...page.items[2], last4: '١٢٣٤' };
    const result = compileCheck(schema)(structuredClone(page));
    expect(result.success).toBe(false);
    expect(result.error).toBeInstanceOf(z.ZodError);
    expect(result.error?.issues.map((i) => i.path)).toEqual([['items', 2, 'last4']]);
    expect(result.error?.issues).toStrictEqual(schema.safeParse(page).error?.issues);

    const tx = structuredClone(samples.upstreamTransactionSchema[0]) as Record<string, unknown>;
    delete tx.status;
    tx.date = '2024-02-30T00:00:00Z';
    const txResult = compileCheck(z.array(upstreamTransactionSchema))([tx]);
    expect(txResult.success).toBe(false);
    expect(txResult.error?.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        [0, 'date'],
        [0, 'status'],
      ]),
    );
  });

  it('does not compile a refinement, and its check still refuses what the refinement refuses', () => {
    const range = z
      .object({ min: z.number().int(), max: z.number().int() })
      .refine((r) => r.min <= r.max, { message: 'min above max', path: ['min'] });
    expect(isCompiled(range)).toBe(false);
    // Nested, too: the whole schema is left to zod.
    const nested = listEnvelopeSchema(range);
    expect(isCompiled(nested)).toBe(false);
    const check = compileCheck(range);
    const refused = check({ min: 2, max: 1 });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues).toMatchObject([{ path: ['min'], message: 'min above max' }]);
    expect(check({ min: 1, max: 2, extra: true })).toEqual({
      success: true,
      data: { min: 1, max: 2 },
    });
    expect(check({ min: 1.5, max: 2 }).success).toBe(false);
    const nestedResult = compileCheck(nested)({ items: [{ min: 3, max: 0 }], metadata: {} });
    expect(nestedResult.error?.issues).toMatchObject([{ path: ['items', 0, 'min'] }]);

    // A transform is not compiled either: its output is zod's.
    const transformed = z.object({ n: z.string().transform(Number) });
    expect(isCompiled(transformed)).toBe(false);
    expect(compileCheck(transformed)({ n: '12' })).toEqual({ success: true, data: { n: 12 } });
  });

  it('refuses an unknown key of a strict object through the compiled check', () => {
    const strict = z.strictObject({
      id: z.string(),
      limit: z.strictObject({ amountCents: z.number().int() }).optional(),
    });
    const inStrip = z.object({ card: strict });
    expect(isCompiled(strict)).toBe(true);
    expect(isCompiled(inStrip)).toBe(true);
    const check = compileCheck(strict);

    const ok = { id: 'a', limit: { amountCents: 1 } };
    expect(check(ok)).toEqual({ success: true, data: ok });
    expect(check(ok).data).toBe(ok);

    const top = check({ id: 'a', extra: 1 });
    expect(top.success).toBe(false);
    expect(top.error?.issues).toMatchObject([{ code: 'unrecognized_keys', keys: ['extra'] }]);

    const nestedKey = check({ id: 'a', limit: { amountCents: 1, currency: 'USD' } });
    expect(nestedKey.error?.issues).toMatchObject([
      { code: 'unrecognized_keys', keys: ['currency'], path: ['limit'] },
    ]);

    const own = {};
    setOwn(own, '__proto__', {});
    expect(check({ id: 'a', limit: { amountCents: 1, ...own } }).success).toBe(false);
    expect(strict.safeParse({ id: 'a', limit: { amountCents: 1, ...own } }).success).toBe(false);

    // A strict object inside a strip one: the outer unknown key is dropped, the inner refused.
    const outer = compileCheck(inStrip);
    expect(outer({ card: { id: 'a' }, extra: 1 })).toEqual({
      success: true,
      data: { card: { id: 'a' } },
    });
    expect(outer({ card: { id: 'a', extra: 1 } }).error?.issues).toMatchObject([
      { code: 'unrecognized_keys', path: ['card'] },
    ]);
  });
});
