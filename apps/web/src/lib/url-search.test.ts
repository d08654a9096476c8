import { defaultStringifySearch } from '@tanstack/react-router';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateAuditSearch } from '../features/audit/audit-search';
import { validateCardsSearch } from '../features/cards/cards-search';
import { validateOverviewSearch } from '../features/overview/overview-search';
import { validateInboxSearch } from '../features/receipt-inbox/inbox-search';
import { validateTransactionsSearch } from '../features/transactions/transactions-search';
import { flag, text } from './search-params';
import { parseSearch, stringifySearch } from './url-search';

/** Text with what is hardest to write in an address, JSON among it; any script otherwise. */
const anyText = fc.oneof(
  fc.string({
    unit: fc.oneof(
      fc.constantFrom(',', '"', '[', ']', '{', '%', '+', '&', '=', '#', '?', '/', '@', ' ', '\\'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
  }),
  fc.json(),
  fc.array(fc.string()).map((list) => JSON.stringify(list)),
);

type Validator = (search: Record<string, unknown>) => object;

/** What a screen reads from the address it wrote. */
const reopened = (validate: Validator, search: object) =>
  validate(parseSearch(stringifySearch(search as Record<string, unknown>)));
/** What a screen reads from a link the router's old JSON format wrote. */
const reopenedOld = (validate: Validator, search: object) =>
  validate(parseSearch(defaultStringifySearch(search as Record<string, unknown>)));

/** Every field a screen has, set, with values that are hard to write: commas, quotes, brackets. */
const screens: [string, Validator, Record<string, unknown>][] = [
  [
    'Transactions, days chosen',
    validateTransactionsSearch,
    {
      subAccountId: 'sa_ops, "east"',
      q: 'coffee, "tea" & [cake] 100% +1',
      from: '2026-03-01',
      to: '2026-03-08',
      status: ['declined', 'settled'],
      cardId: ['card_1', 'card,2', '[3]'],
      category: ['5812', '5814'],
      categoryGroup: ['airlines', 'car-rental'],
      merchant: ['ACME, INC', '"QUOTED"', '[BRACKETS]'],
      declineReason: ['insufficient_funds'],
      min: '1,200.50',
      max: '5000',
      sort: 'amount',
      dir: 'asc',
      review: 'unreviewed',
      account: ['none', 'acct_1'],
      tag: ['travel, q1', '#food'],
      receipt: 'missing',
      memo: 'written',
      by: 'card',
      pages: 3,
    },
  ],
  [
    'Transactions, a preset and one of each list',
    validateTransactionsSearch,
    {
      q: '"500"',
      period: 'last-month',
      status: ['declined'],
      merchant: ['"ACME"'],
      tag: ['[x]'],
      min: '500',
    },
  ],
  [
    'Audit',
    validateAuditSearch,
    {
      actor: 'jane.doe+ops@example.com',
      action: 'access.denied',
      attempted: 'card.reveal',
      outcome: 'denied',
      cardId: 'card,"1"',
      from: '2026-03-01',
      to: '2026-03-08',
      pages: 2,
    },
  ],
  [
    'Cards',
    validateCardsSearch,
    { subAccountId: '123', status: 'active', sort: 'name', direction: 'desc', pages: 20 },
  ],
  [
    'Overview',
    validateOverviewSearch,
    { subAccountId: '[sa]', period: 'custom', from: '2026-01-01', to: '2026-03-31' },
  ],
  ['Receipt inbox', validateInboxSearch, { show: 'needs-you' }],
];

describe('a screen reopens exactly what it wrote into the address', () => {
  it.each(screens)('%s', (_name, validate, search) => {
    const valid = validate(search);
    // Every value of the example is one the screen keeps, so a dropped one would show.
    expect(valid).toMatchObject(search);
    expect(reopened(validate, valid)).toEqual(valid);
  });

  it.each(screens)('%s, from a link in the old JSON format', (_name, validate, search) => {
    const valid = validate(search);
    expect(reopenedOld(validate, valid)).toEqual(valid);
  });

  it('sign-in: where to go next (an address with its own commas and quotes) and a flag', () => {
    const redirect = '/transactions?status=declined,settled&q=a%2C%22b%22';
    const read = parseSearch(stringifySearch({ redirect, expired: true }));
    expect(text(read.redirect, 2000)).toBe(redirect);
    expect(flag(read.expired)).toBe(true);
  });
});

describe('the address a person reads', () => {
  it('holds lists as values joined by commas, amounts and counts as typed, no quotes', () => {
    expect(
      stringifySearch({
        status: ['declined', 'settled'],
        min: '500',
        q: 'coffee',
        pages: 2,
        expired: true,
      }),
    ).toBe('?status=declined,settled&min=500&q=coffee&pages=2&expired=true');
  });

  it('writes a list of one as that value, and leaves out empty lists and absent values', () => {
    expect(stringifySearch({ status: ['declined'] })).toBe('?status=declined');
    expect(stringifySearch({ status: [], q: undefined, min: null })).toBe('');
  });

  it('encodes what a query cannot hold bare, a comma inside a value too; emails and paths stay readable', () => {
    expect(stringifySearch({ q: 'coffee & tea #1+2=3? 100%' })).toBe(
      '?q=coffee%20%26%20tea%20%231%2B2%3D3%3F%20100%25',
    );
    expect(stringifySearch({ merchant: ['ACME, INC', 'Café'] })).toBe(
      '?merchant=ACME%2C%20INC,Caf%C3%A9',
    );
    expect(stringifySearch({ actor: 'jane@example.com', redirect: '/cards?status=active' })).toBe(
      '?actor=jane@example.com&redirect=/cards%3Fstatus%3Dactive',
    );
  });

  it('writes only characters a query holds as they are: a browser keeps the address as written', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(anyText, fc.array(anyText))), (search) => {
        const written = stringifySearch(search);
        expect(written).toMatch(/^(\?[\w\-.!~*()%,=&@:/]*)?$/);
        expect(new URL(`https://app.test/transactions${written}`).search).toBe(written);
      }),
    );
  });

  it('reads a list at its bare commas, every value as text', () => {
    expect(parseSearch('?status=declined,settled&min=500&pages=2&expired=true')).toEqual({
      status: ['declined', 'settled'],
      min: '500',
      pages: '2',
      expired: 'true',
    });
    expect(parseSearch('?merchant=ACME%2C%20INC,Joe%27s')).toEqual({
      merchant: ['ACME, INC', "Joe's"],
    });
    expect(parseSearch('')).toEqual({});
  });

  it('reads a hand-written address: a key twice, a key alone, a stray %, a lone surrogate written', () => {
    expect(
      parseSearch('?status=declined&status=settled,refund&expired&q=100%&m=caf%C3%A9%20100%'),
    ).toEqual({
      status: ['declined', 'settled', 'refund'],
      expired: '',
      q: '100%',
      m: 'café 100%',
    });
    // A pasted half of an emoji cannot be percent-encoded: it is written as the "unknown" sign.
    expect(parseSearch(stringifySearch({ q: 'a\uD83D' }))).toEqual({ q: 'a\uFFFD' });
  });

  it('takes back a text split at a comma typed into the address, and keeps a list a list', () => {
    const typed = validateTransactionsSearch(parseSearch('?q=coffee,tea&merchant=ACME,Joe'));
    expect(typed.q).toBe('coffee,tea');
    expect(typed.merchant).toEqual(['ACME', 'Joe']);
  });
});

describe('links in the old JSON format', () => {
  it('open to the same filters as the readable ones', () => {
    const old = parseSearch(
      '?status=%5B%22declined%22%2C%22settled%22%5D&min=%22500%22&pages=2&q=coffee+shop&subAccountId=%22123%22&expired=true',
    );
    expect(old).toEqual({
      status: ['declined', 'settled'],
      min: '500',
      pages: '2',
      q: 'coffee shop',
      subAccountId: '123',
      expired: 'true',
    });
    expect(validateTransactionsSearch(old)).toEqual(
      validateTransactionsSearch(
        parseSearch('?status=declined,settled&min=500&pages=2&q=coffee%20shop&subAccountId=123'),
      ),
    );
  });

  it('with an empty list: no filter', () => {
    expect(parseSearch('?status=%5B%5D')).toEqual({});
  });

  it('read any text and any list the old format wrote as it was', () => {
    fc.assert(
      fc.property(anyText, fc.array(anyText, { minLength: 1 }), (q, merchant) => {
        expect(parseSearch(defaultStringifySearch({ q, merchant }))).toEqual({ q, merchant });
      }),
    );
  });
});

describe('text reads back exactly as typed', () => {
  const awkward = [
    '"500"',
    '""',
    '"',
    '[draft]',
    '["a","b"]',
    '[]',
    '[1, 2]',
    '{"a":1}',
    'a,b',
    ', ',
    'ACME, INC',
    '100%',
    '%2C',
    '+1',
    ' spaced ',
    '',
    'null',
    'true',
    '-5',
    '\\"',
  ];

  it.each(awkward)('%j alone, as a list of one, and in a list', (value) => {
    expect(parseSearch(stringifySearch({ q: value })).q).toBe(value);
    expect(parseSearch(stringifySearch({ merchant: [value] })).merchant).toBe(value);
    expect(parseSearch(stringifySearch({ merchant: [value, 'x'] })).merchant).toEqual([value, 'x']);
  });

  it('whatever the text, and whatever the list of two or more', () => {
    fc.assert(
      fc.property(anyText, fc.array(anyText, { minLength: 2 }), (q, merchant) => {
        expect(parseSearch(stringifySearch({ q, merchant }))).toEqual({ q, merchant });
      }),
    );
  });
});
