// fast-check arbitraries for card-service answers, read from the upstream schemas' own shapes
// (packages/shared/src/upstream): every field the schema declares, optional ones present or
// absent, plus unknown extra fields, with ids and cursors drawn from what the contract allows
// (any string). Not a test file: the contract property test builds its worlds from these.
import { upstreamCardSchema } from '@card-console/shared/upstream/card';
import { upstreamSubAccountSchema } from '@card-console/shared/upstream/sub-account';
import { upstreamTransactionSchema } from '@card-console/shared/upstream/transaction';
import fc from 'fast-check';
import type { z } from 'zod';

type Json = Record<string, unknown>;
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string>;
  format?: string;
  checks?: {
    _zod: { def: { check: string; format?: string; pattern?: RegExp; minimum?: number } };
  }[];
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A field's arbitrary by its name, wherever it sits, in place of the one its schema gives. */
export type FieldArbitraries = Record<string, fc.Arbitrary<unknown>>;

interface Shaping {
  fields: FieldArbitraries;
  /** Instants (Unix ms) that date-time fields fall in. */
  dates: { min: number; max: number };
}

/** Free text: any code point (fast-check's "binary" unit never gives a lone surrogate). */
export const anyText = fc.string({ unit: 'binary', maxLength: 24 });

/**
 * Ids as the contract allows them (any non-empty string), weighted towards what breaks URLs:
 * path, query and fragment syntax, escapes, dot segments, spaces, scripts and emoji, control
 * characters, and one longer than the BFF can address.
 */
export const contractId = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }) },
  {
    weight: 3,
    arbitrary: fc.string({
      unit: fc.constantFrom(...'/%?#+ .~&=:;@\\"\'<>ab1é卡😀'),
      minLength: 1,
      maxLength: 8,
    }),
  },
  { weight: 1, arbitrary: fc.base64String({ minLength: 4, maxLength: 24 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '..',
      '.',
      '../sub-account',
      'a/b',
      '%2e%2e',
      '%',
      '+/=',
      ' ',
      'a?include_pan=true#x',
      'quaerat sit',
      '卡片 1',
      '😀',
      'a\u0000b',
      'x'.repeat(600),
    ),
  },
);

/**
 * Cursors as a service may issue them, within what the BFF passes on (2048 bytes of UTF-8):
 * any text, base64 with `+`, `/` and `=`, URL syntax, and long ones.
 */
export const contractCursor = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.base64String({ minLength: 4, maxLength: 64 }),
  fc.string({ unit: fc.constantFrom(...'/%?#+ =&.'), minLength: 1, maxLength: 10 }),
  fc.constantFrom('quaerat sit', '..', '%25', 'a&b=c#d', '+', 'eyJ0IjoxfQ=='),
  fc.string({ unit: 'grapheme-ascii', minLength: 500, maxLength: 1800 }),
);

const OFFSETS_MIN = [0, 0, 60, -300, 330, 840, -720];

/** An ISO 8601 date-time with an offset, as the schemas' `z.iso.datetime({ offset: true })`. */
function isoAt(ms: number, offsetMin: number): string {
  const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, 23);
  if (offsetMin === 0) return `${local}Z`;
  const abs = Math.abs(offsetMin);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${offsetMin < 0 ? '-' : '+'}${hh}:${mm}`;
}

function stringOf(def: Def, shaping: Shaping): fc.Arbitrary<unknown> {
  if (def.format === 'datetime') {
    return fc
      .tuple(fc.integer(shaping.dates), fc.constantFrom(...OFFSETS_MIN))
      .map(([ms, offset]) => isoAt(ms, offset));
  }
  let minLength = 0;
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (c.check === 'string_format' && c.format === 'regex' && c.pattern) {
      return fc.stringMatching(c.pattern);
    }
    if (c.check === 'min_length') minLength = c.minimum ?? 0;
  }
  return minLength > 0 ? fc.string({ unit: 'binary', minLength, maxLength: 24 }) : anyText;
}

const extraKey = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__');

/** Values matching `schema`, from its shape; unknown extra fields on every object. */
export function answerOf(schema: z.ZodType, shaping: Shaping): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const shape = def.shape ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [key, field] of Object.entries(shape)) {
        const optional = defOf(field).type === 'optional';
        model[key] = shaping.fields[key] ?? answerOf(field, shaping);
        if (!optional) required.push(key);
      }
      const extra = fc.dictionary(
        extraKey.filter((k) => !(k in shape)),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 2 },
      );
      return fc
        .tuple(fc.record(model, { requiredKeys: required }), extra)
        .map(([known, more]) => ({ ...more, ...known }));
    }
    case 'optional':
      return answerOf(def.innerType as z.ZodType, shaping);
    case 'string':
      return stringOf(def, shaping);
    case 'number': {
      const integer = def.checks?.some((c) => c._zod.def.format === 'safeint');
      return integer
        ? fc.integer({ min: -1_000_000_000, max: 1_000_000_000 })
        : fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    }
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case 'array':
      return fc.array(answerOf(def.element as z.ZodType, shaping), { maxLength: 3 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A card program as a card service that follows the contract could hold it. */
export interface ContractWorld {
  subAccounts: Json[];
  cards: Json[];
  /** Each transaction with the sub account it is listed under. */
  transactions: { subAccountId: string; item: Json }[];
  /** Items per page, per list: chosen by the service, any size. */
  pageSize: { subAccounts: number; cards: number; transactions: number };
  /** The service's cursors: opaque strings, handed out page after page. */
  cursors: string[];
  /** Whether list metadata carries `count` (optional in the contract). */
  withCount: boolean;
}

/** Random worlds whose every answer matches the upstream schemas (ids and cursors: any string). */
export function contractWorld(dates: { min: number; max: number }): fc.Arbitrary<ContractWorld> {
  const shaping = (fields: FieldArbitraries): Shaping => ({ fields, dates });
  return fc
    .record({
      subIds: fc.uniqueArray(contractId, { minLength: 1, maxLength: 3 }),
      cardIds: fc.uniqueArray(contractId, { maxLength: 6 }),
      cursors: fc.uniqueArray(contractCursor, { minLength: 1, maxLength: 5 }),
      pageSize: fc.record({
        subAccounts: fc.integer({ min: 1, max: 3 }),
        cards: fc.integer({ min: 1, max: 4 }),
        transactions: fc.integer({ min: 1, max: 6 }),
      }),
      withCount: fc.boolean(),
    })
    .chain(({ subIds, cardIds, cursors, pageSize, withCount }) => {
      const cardId =
        cardIds.length > 0 ? fc.oneof(fc.constantFrom(...cardIds), contractId) : contractId;
      const subAccounts = fc.tuple(
        ...subIds.map((id) => answerOf(upstreamSubAccountSchema, shaping({ id: fc.constant(id) }))),
      );
      const cards = fc.tuple(
        ...cardIds.map((id) => answerOf(upstreamCardSchema, shaping({ id: fc.constant(id) }))),
      );
      const transaction = fc
        .constantFrom(...subIds)
        .chain((subAccountId) =>
          answerOf(
            upstreamTransactionSchema,
            shaping({ id: contractId, cardId, subAccountId: fc.constant(subAccountId) }),
          ).map((item) => ({ subAccountId, item: item as Json })),
        );
      return fc.record({
        subAccounts: subAccounts.map((items) => items as Json[]),
        cards: cards.map((items) => items as Json[]),
        transactions: fc.array(transaction, { maxLength: 24 }),
        pageSize: fc.constant(pageSize),
        cursors: fc.constant(cursors),
        withCount: fc.constant(withCount),
      });
    });
}
