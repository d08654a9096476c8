// Free text from the card service, through the whole BFF: the API key (or a long piece of it)
// never reaches a response or a log line, and card numbers in it are masked to their last four
// in every response, the CSV export and the audit trail. Card numbers are made at run time.
import { readFile } from 'node:fs/promises';
import { luhnCheckDigit } from '@card-console/card-service-sim';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../test/harness';
import { cardNumbersIn } from '../test/secret-scan';
import { testPan } from '../test/test-pan';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 600, cards: 8, subAccounts: 2 } });
  admin = await t.signIn('admin');
  finance = await t.signIn('finance');
});
afterAll(() => t.close());
afterEach(() => t.sim.faults.clear());

const pan = testPan(31);
/** A number whose doubled digits are 5 or more: only a Luhn that subtracts 9 catches it. */
const highPan = `${'5'.repeat(12)}444${luhnCheckDigit(`${'5'.repeat(12)}444`)}`;
const grouped = (n: string, separator: string) => n.match(/.{4}/g)?.join(separator) ?? n;
const masked = (n: string) => `•••• ${n.slice(-4)}`;

/** Every piece of the key 8 characters long found in `text`. */
const keyPiecesIn = (text: string) => {
  const found: string[] = [];
  for (let i = 0; i + 8 <= t.apiKey.length; i++) {
    const piece = t.apiKey.slice(i, i + 8);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
};

/** Everything every response so far sent: status line stand-in, headers and body. */
const everythingSent = () =>
  t.responses.map((r) => `${r.method} ${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`);

/** Asks the simulator directly, as the program's own tooling would. */
const simCall = (method: string, path: string, body: unknown) =>
  fetch(`${t.simUrl}${path}`, {
    method,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const downloadCsv = async (query: string) => {
  const res = await fetch(`${t.url}/api/transactions/export.csv?${query}`, {
    headers: finance.headers(),
  });
  expect(res.status).toBe(200);
  return res.text();
};

describe('an upstream rejection that quotes the API key', () => {
  it('a 400 and a 422 echoing the key reach the person without any piece of it', async () => {
    const card = t.sim.data.cards()[0];
    if (!card) throw new Error('no card in the test data');
    t.sim.faults.enqueue(
      { kind: 'echo-key', status: 400, route: 'PATCH /card/:id' },
      { kind: 'echo-key', status: 422, route: 'PATCH /card/:id', message: 'key "{key}"?' },
      {
        kind: 'status',
        status: 422,
        route: 'PATCH /card/:id',
        body: { status: 422, code: 'invalid_request', message: `no ${t.apiKey.slice(4, 20)}` },
      },
    );
    const shown: string[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      const res = await t.request
        .patch(`/api/cards/${card.id}`)
        .set(admin.headers())
        .send({ name, expected: { name: card.name } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.code).toBe('upstream_rejected');
      shown.push(res.body.detail);
    }
    expect(shown).toEqual([
      'the key [redacted] is not allowed for this program',
      'key "[redacted]"?',
      'no [redacted]',
    ]);
    expect(keyPiecesIn(everythingSent().join('\n'))).toEqual([]);
    expect(t.logs.some((line) => line.includes('upstream rejected the request'))).toBe(true);
    expect(keyPiecesIn(t.logs.join('\n'))).toEqual([]);
  });
});

describe('card numbers in upstream free text', () => {
  it('are masked to their last four in the transaction detail, the list and the CSV', async () => {
    const sub = t.sim.data.subAccounts()[0]?.id ?? '';
    const all = t.sim.data.transactions(sub);
    const withPan = all.find((tx) => tx.merchantData);
    const withOtherDigits = all.find((tx) => tx.merchantData && tx.id !== withPan?.id);
    if (!withPan || !withOtherDigits) throw new Error('no card transactions in the test data');
    // 16 digits, one check digit off: not a card number, so shown as it is.
    const notCard = `${pan.slice(0, -1)}${(Number(pan.at(-1)) + 1) % 10}`;
    t.sim.testing.setTransactionText(withPan.id, {
      description: `card ${pan}`,
      merchantDescription: `SHOP ${grouped(highPan, ' ')}`,
      declineReason: `card ${grouped(pan, '-')} blocked`,
    });
    t.sim.testing.setTransactionText(withOtherDigits.id, { description: `order ${notCard}` });

    const detail = await t.request.get(`/api/transactions/${withPan.id}`).set(finance.headers());
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      description: `card ${masked(pan)}`,
      merchant: { description: `SHOP ${masked(highPan)}` },
      declineReason: `card ${masked(pan)} blocked`,
      referenceNumber: withPan.referenceNumber,
    });
    const other = await t.request
      .get(`/api/transactions/${withOtherDigits.id}`)
      .set(finance.headers());
    expect(other.body.description).toBe(`order ${notCard}`);

    const listed: Record<string, { description: string }> = {};
    let cursor = '';
    do {
      const page = await t.request
        .get(`/api/transactions?subAccountId=${sub}${cursor ? `&cursor=${cursor}` : ''}`)
        .set(finance.headers());
      expect(page.status).toBe(200);
      for (const item of page.body.items) listed[item.id] = item;
      cursor = page.body.nextCursor ?? '';
    } while (cursor);
    expect(listed[withPan.id]).toEqual(detail.body);
    expect(listed[withOtherDigits.id]?.description).toBe(`order ${notCard}`);

    const csv = await downloadCsv(`subAccountId=${sub}`);
    const row = csv.split('\r\n').find((line) => line.startsWith(`${withPan.id},`)) ?? '';
    expect(row).toContain(`card ${masked(pan)},SHOP ${masked(highPan)},`);
    expect(row).toContain(`card ${masked(pan)} blocked`);
    expect(csv).toContain(`order ${notCard}`);

    const sent = everythingSent().join('\n');
    for (const n of [pan, highPan, grouped(pan, '-'), grouped(highPan, ' ')]) {
      expect(sent).not.toContain(n);
      expect(t.logs.join('\n')).not.toContain(n);
    }
    expect(cardNumbersIn(sent)).toEqual([]);
  });

  it('card and sub-account names are masked everywhere, and an edit of such a card is audited', async () => {
    const card = t.sim.data.cards()[1];
    if (!card) throw new Error('no card in the test data');
    expect(
      (await simCall('PATCH', `/card/${card.id}`, { name: `Ops ${pan} ${t.apiKey}` })).ok,
    ).toBe(true);
    const created = await simCall('POST', '/sub-account', {
      name: `Team ${grouped(highPan, ' ')}`,
    });
    expect(created.ok).toBe(true);
    const subId = ((await created.json()) as { id: string }).id;
    const cardName = `Ops ${masked(pan)} [redacted]`;

    const detail = await t.request.get(`/api/cards/${card.id}`).set(finance.headers());
    expect(detail.body.name).toBe(cardName);
    const list = await t.request.get('/api/cards?sort=createdAt').set(finance.headers());
    expect(list.body.items.find((c: { id: string }) => c.id === card.id)?.name).toBe(cardName);
    const subs = await t.request.get('/api/sub-accounts').set(finance.headers());
    expect(subs.body.items.find((s: { id: string }) => s.id === subId)?.name).toBe(
      `Team ${masked(highPan)}`,
    );

    // The audit keeps the name before and after: masked, so the record can be written.
    const edit = await t.request
      .patch(`/api/cards/${card.id}`)
      .set(admin.headers())
      .send({
        transactionSizeLimit: { maximumCents: 432_100 },
        expected: { maximumCents: detail.body.transactionSizeLimit.maximumCents ?? null },
      });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(edit.body.name).toBe(cardName);
    const audit = await readFile(t.audit.path, 'utf8');
    const record = audit
      .split('\n')
      .filter((line) => line.includes('"card.update"') && line.includes(card.id))
      .at(-1);
    expect(record).toContain(`"outcome":"success"`);
    expect(JSON.parse(record ?? '{}')).toMatchObject({
      before: { name: cardName },
      after: { name: cardName, maximumCents: 432_100 },
    });

    const sent = everythingSent().join('\n');
    expect(keyPiecesIn(sent)).toEqual([]);
    expect(keyPiecesIn(t.logs.join('\n'))).toEqual([]);
    expect(keyPiecesIn(audit)).toEqual([]);
    for (const n of [pan, highPan]) {
      expect(sent).not.toContain(n);
      expect(audit).not.toContain(n);
    }
    expect(cardNumbersIn(sent)).toEqual([]);
  });
});

describe('card numbers in upstream text, however their digit groups are joined', () => {
  const joins = [
    ['dots', '.'],
    ['slashes', '/'],
    ['underscores', '_'],
    ['no-break spaces', '\u00A0'],
    ['thin spaces', '\u2009'],
    ['narrow no-break spaces', '\u202F'],
    ['en dashes', '\u2013'],
    ['a zero-width space beside each space', '\u200B '],
  ] as const;

  it('card names are masked in the detail, the list and the audit of an edit', async () => {
    const cards = t.sim.data.cards();
    const names = new Map<string, string>();
    for (const [i, [, join]] of joins.entries()) {
      const card = cards[i % cards.length];
      if (!card) throw new Error('no card in the test data');
      const number = testPan(900 + i);
      expect(
        (await simCall('PATCH', `/card/${card.id}`, { name: `Ops ${grouped(number, join)}` })).ok,
      ).toBe(true);
      const detail = await t.request.get(`/api/cards/${card.id}`).set(finance.headers());
      expect(detail.body.name, join).toBe(`Ops ${masked(number)}`);
      names.set(card.id, detail.body.name);
    }
    const list = await t.request.get('/api/cards?sort=createdAt').set(finance.headers());
    for (const [id, name] of names) {
      expect(list.body.items.find((c: { id: string }) => c.id === id)?.name).toBe(name);
    }

    // An edit of the last card renamed: its before/after names are recorded masked.
    const [cardId, name] = [...names].at(-1) ?? ['', ''];
    const detail = await t.request.get(`/api/cards/${cardId}`).set(admin.headers());
    const edit = await t.request
      .patch(`/api/cards/${cardId}`)
      .set(admin.headers())
      .send({
        transactionSizeLimit: { maximumCents: 123_400 },
        expected: { maximumCents: detail.body.transactionSizeLimit.maximumCents ?? null },
      });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    const [record] = (await t.audit.list({ limit: 1, filter: { cardId } })).items;
    expect(record).toMatchObject({ outcome: 'success', before: { name }, after: { name } });

    const sent = everythingSent().join('\n');
    const audit = await readFile(t.audit.path, 'utf8');
    for (const [i, [, join]] of joins.entries()) {
      const written = grouped(testPan(900 + i), join);
      expect(sent).not.toContain(written);
      expect(audit).not.toContain(written);
      expect(t.logs.join('\n')).not.toContain(written);
    }
  });

  it('transaction texts are masked in the detail and the CSV; dates and amounts stay', async () => {
    const sub = t.sim.data.subAccounts()[1]?.id ?? '';
    const tx = t.sim.data.transactions(sub).find((x) => x.merchantData);
    if (!tx) throw new Error('no card transaction in the test data');
    const [a, b, c] = [testPan(71), testPan(72), testPan(73)];
    t.sim.testing.setTransactionText(tx.id, {
      description: `card ${grouped(a, '.')} on 2026/11/26 12:30:45 for 1,234.56`,
      merchantDescription: `SHOP ${grouped(b, '\u00A0')}`,
      declineReason: `card ${grouped(c, '/')} blocked`,
    });
    const detail = await t.request.get(`/api/transactions/${tx.id}`).set(finance.headers());
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      description: `card ${masked(a)} on 2026/11/26 12:30:45 for 1,234.56`,
      merchant: { description: `SHOP ${masked(b)}` },
      declineReason: `card ${masked(c)} blocked`,
    });
    const csv = await downloadCsv(`subAccountId=${sub}`);
    const row = csv.split('\r\n').find((line) => line.startsWith(`${tx.id},`)) ?? '';
    expect(row).toContain(`card ${masked(a)} on 2026/11/26 12:30:45 for 1,234.56`);
    expect(row).toContain(`SHOP ${masked(b)}`);
    for (const [n, join] of [
      [a, '.'],
      [b, '\u00A0'],
      [c, '/'],
    ] as const) {
      expect(everythingSent().join('\n')).not.toContain(grouped(n, join));
    }
  });
});
