import { describe, expect, it } from 'vitest';
import { testPan } from '../../test/test-pan';
import { findCardNumbers, isLuhnValid } from '../security/card-numbers';
import {
  type AlertMessage,
  type BalanceAlertMessage,
  renderAlert,
  safeAlert,
  type TransactionAlertMessage,
  type UtilisationAlertMessage,
} from './alert-message';

const origin = 'https://console.example.com';
const pan = testPan(1_234_567);
const last4 = pan.slice(-4);
/** The number in groups of four, as people write it. */
const grouped = (separator: string) => (pan.match(/\d{4}/g) ?? []).join(separator);

const sampleAlert = (
  overrides: Partial<TransactionAlertMessage> = {},
): TransactionAlertMessage => ({
  ruleName: 'Declines over $100',
  kind: 'transaction_declined',
  transactionId: 'txn_01',
  subAccount: { id: 'sa_1', name: 'Marketing' },
  card: { name: 'Ads card', lastFour: '4242' },
  merchant: 'ACME Ads',
  amount: { cents: 123_456, currency: 'USD' },
  status: 'declined',
  declineReason: 'insufficient funds',
  occurredAt: '2026-11-27T05:20:13.000Z',
  linkPath: '/transactions/txn_01?subAccountId=sa_1',
  ...overrides,
});

const outputs = (alert: AlertMessage) => Object.values(renderAlert(alert, origin));

describe('an alert message', () => {
  it('says what happened, how much, where, on which card, and links into the app', () => {
    const { subject, text, html, chatText } = renderAlert(sampleAlert(), origin);
    expect(subject).toBe(
      '[Card Console] Declined transaction: $1,234.56 at ACME Ads on card •••• 4242',
    );
    for (const out of [text, html]) {
      for (const part of [
        'Declines over $100',
        '$1,234.56',
        'ACME Ads',
        'insufficient funds',
        'Ads card (•••• 4242)',
        'Marketing',
        '2026-11-27 05:20 UTC',
        'https://console.example.com/transactions/txn_01?subAccountId=sa_1',
      ]) {
        expect(out).toContain(part);
      }
    }
    expect(chatText).not.toContain('\n');
    expect(chatText).toMatch(
      /^Declined transaction: \$1,234\.56 at ACME Ads .* <https:\/\/console\.example\.com\/transactions\/txn_01\?subAccountId=sa_1\|Open>$/,
    );
  });

  it("names the merchant by its name when the index could tell it, the network's text beside it", () => {
    const { subject, text, html } = renderAlert(
      sampleAlert({ merchant: 'TST* PINE TELECOM BOSTON MA', merchantName: 'Pine Telecom' }),
      origin,
    );
    expect(subject).toBe(
      '[Card Console] Declined transaction: $1,234.56 at Pine Telecom on card •••• 4242',
    );
    for (const out of [text, html]) {
      expect(out).toContain('Pine Telecom');
      expect(out).toContain('As the card network wrote it');
      expect(out).toContain('TST* PINE TELECOM BOSTON MA');
    }
    // The same name as the text: said once.
    const same = renderAlert(sampleAlert({ merchantName: 'ACME Ads' }), origin);
    expect(same.text).not.toContain('As the card network wrote it');
  });

  it('when a card number is in the merchant, description or any other text, no output holds it', () => {
    expect(isLuhnValid(pan)).toBe(true);
    const spellings = [pan, grouped(' '), grouped('-'), grouped('\u00A0')];
    for (const written of spellings) {
      const alert = sampleAlert({
        ruleName: `rule ${written}`,
        merchant: `SHOP ${written} LTD`,
        merchantName: `Shop ${written}`,
        description: `paid with ${written}`,
        declineReason: `card ${written} blocked`,
        status: written,
        subAccount: { id: 'sa_1', name: `team ${written}` },
        card: { name: `card ${written}`, lastFour: last4 },
      });
      for (const out of outputs(alert)) {
        expect(findCardNumbers(out)).toEqual([]);
        expect(out.replace(/\D/g, '')).not.toContain(pan.slice(0, 12));
      }
      // The merchant still reads, with the number as the UI shows a card.
      expect(renderAlert(alert, origin).text).toContain(`Merchant: Shop •••• ${last4}`);
      expect(renderAlert(alert, origin).text).toContain(`SHOP •••• ${last4} LTD`);
      expect(JSON.stringify(safeAlert(alert))).not.toContain(pan.slice(0, 8));
    }
  });

  it('escapes markup in the HTML and in the chat line', () => {
    const alert = sampleAlert({ merchant: '<script>alert(1)</script> & "Co" <!channel>' });
    const { html, chatText, text } = renderAlert(alert, origin);
    expect(html).not.toContain('<script>');
    expect(html).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot; &lt;!channel&gt;',
    );
    expect(chatText).not.toContain('<!channel>');
    expect(chatText).not.toContain('<script>');
    expect(chatText).toContain('&lt;!channel&gt;');
    expect(text).toContain('Merchant: <script>alert(1)</script> & "Co" <!channel>');
  });

  it('keeps the subject and chat line on one line when a field holds line breaks', () => {
    const { subject, chatText } = renderAlert(
      sampleAlert({ merchant: 'ACME\r\nBcc: x@evil.test' }),
      origin,
    );
    expect(subject).not.toMatch(/[\r\n]/);
    expect(chatText).not.toMatch(/[\r\n]/);
    expect(subject).toContain('ACME Bcc: x@evil.test');
  });

  it('refuses a link that would leave the app', () => {
    for (const linkPath of [
      '//evil.test/x',
      '/\\evil.test',
      'https://evil.test/',
      'javascript:alert(1)',
      '/a"onclick=x',
    ]) {
      expect(() => renderAlert(sampleAlert({ linkPath }), origin)).toThrow();
    }
  });

  it('refuses a malformed alert', () => {
    expect(() =>
      renderAlert(sampleAlert({ card: { name: 'x', lastFour: '12345' } }), origin),
    ).toThrow();
    expect(() =>
      renderAlert(sampleAlert({ amount: { cents: 1.5, currency: 'USD' } }), origin),
    ).toThrow();
  });

  it('an alert about a transaction without a known card, or a category new to the card, reads as such', () => {
    const { card: _card, ...cardless } = sampleAlert();
    const noCard = renderAlert(cardless, origin);
    expect(noCard.subject).not.toContain('on card');
    expect(noCard.text).not.toMatch(/^Card:/m);
    expect(noCard.chatText).toContain('Declined transaction');
    const newCategory = renderAlert(sampleAlert({ kind: 'transaction_new_category' }), origin);
    expect(newCategory.subject).toContain('Merchant category new to the card');
    expect(newCategory.text).toContain('Ads card (•••• 4242)');
  });
});

const utilisationAlert = (
  overrides: Partial<UtilisationAlertMessage> = {},
): UtilisationAlertMessage => ({
  ruleName: 'Cards past 80%',
  kind: 'card_utilisation',
  subAccount: { id: 'sa_1', name: 'Marketing' },
  card: { id: 'card_7', name: 'Ads card', lastFour: '4242' },
  sharePercent: 80,
  limit: { cents: 100_000, currency: 'USD' },
  spent: { cents: 85_050, currency: 'USD' },
  window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'America/New_York' },
  linkPath: '/cards/card_7',
  ...overrides,
});

const balanceAlert = (overrides: Partial<BalanceAlertMessage> = {}): BalanceAlertMessage => ({
  ruleName: 'Marketing running low',
  kind: 'balance_below',
  subAccount: { id: 'sa_1', name: 'Marketing' },
  threshold: { cents: 50_000, currency: 'USD' },
  balance: { cents: 32_010, currency: 'USD' },
  day: '2026-11-27',
  linkPath: '/transactions?subAccountId=sa_1',
  ...overrides,
});

describe("an alert about a card's utilisation", () => {
  it('says the share, what was spent of the limit, on which card, in which window, and links to the card', () => {
    const { subject, text, html, chatText } = renderAlert(utilisationAlert(), origin);
    expect(subject).toBe(
      '[Card Console] Card utilisation over 80%: $850.50 of $1,000.00 spent on card •••• 4242',
    );
    expect(text).toBe(
      [
        'Card utilisation over 80%: $850.50 of $1,000.00 spent on card •••• 4242',
        '',
        'Rule: Cards past 80%',
        'Spent: $850.50 of $1,000.00',
        'Alerts at: 80% of the limit',
        'Card: Ads card (•••• 4242)',
        'Sub account: Marketing',
        'Window: 2026-11-01 to 2026-11-30 (America/New_York)',
        '',
        'Open in Card Console: https://console.example.com/cards/card_7',
        '',
      ].join('\n'),
    );
    expect(html).toContain(
      '<th align="left">Window</th><td>2026-11-01 to 2026-11-30 (America/New_York)</td>',
    );
    expect(html).toContain('<a href="https://console.example.com/cards/card_7">');
    expect(chatText).toBe(
      'Card utilisation over 80%: $850.50 of $1,000.00 spent on card •••• 4242 (rule: Cards past 80%, Marketing) <https://console.example.com/cards/card_7|Open>',
    );
  });

  it('names the card by its name when its last four are unknown', () => {
    const { subject, text } = renderAlert(
      utilisationAlert({ card: { id: 'card_7', name: 'Ads card' } }),
      origin,
    );
    expect(subject).toContain('spent on Ads card');
    expect(text).toContain('Card: Ads card\n');
    expect(text).not.toContain('••••');
  });

  it('escapes markup in the HTML and the chat line', () => {
    const { html, chatText, text } = renderAlert(
      utilisationAlert({
        card: { id: 'card_7', name: '<b>Ads</b> & "Co"', lastFour: '4242' },
        ruleName: 'Cards <!channel>',
      }),
      origin,
    );
    expect(html).not.toContain('<b>Ads</b>');
    expect(html).toContain('&lt;b&gt;Ads&lt;/b&gt; &amp; &quot;Co&quot; (•••• 4242)');
    expect(html).toContain('Cards &lt;!channel&gt;');
    expect(chatText).not.toContain('<!channel>');
    expect(chatText).toContain('rule: Cards &lt;!channel&gt;');
    expect(text).toContain('Card: <b>Ads</b> & "Co" (•••• 4242)');
  });

  it('holds no card number, even when the card, rule, sub account or time zone names one', () => {
    for (const written of [pan, grouped(' '), grouped('-')]) {
      const alert = utilisationAlert({
        ruleName: `rule ${written}`,
        subAccount: { id: 'sa_1', name: `team ${written}` },
        card: { id: 'card_7', name: `card ${written}`, lastFour: last4 },
        window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: `zone ${written}` },
      });
      for (const out of outputs(alert)) {
        expect(findCardNumbers(out)).toEqual([]);
        expect(out.replace(/\D/g, '')).not.toContain(pan.slice(0, 12));
      }
      expect(renderAlert(alert, origin).text).toContain(`Card: card •••• ${last4} (•••• ${last4})`);
      expect(JSON.stringify(safeAlert(alert))).not.toContain(pan.slice(0, 8));
    }
  });

  it('refuses a malformed one', () => {
    expect(() => renderAlert(utilisationAlert({ sharePercent: 0 }), origin)).toThrow();
    expect(() =>
      renderAlert(
        utilisationAlert({ window: { fromDay: 'Nov 1', toDay: '2026-11-30', timeZone: 'UTC' } }),
        origin,
      ),
    ).toThrow();
    expect(() => renderAlert(utilisationAlert({ linkPath: '//evil.test/x' }), origin)).toThrow();
  });
});

describe('an alert about a low balance', () => {
  it('says the balance, the amount it is under, the sub account and day, and links to its transactions', () => {
    const { subject, text, html, chatText } = renderAlert(balanceAlert(), origin);
    expect(subject).toBe('[Card Console] Low balance: $320.10 in Marketing, under $500.00');
    expect(text).toBe(
      [
        'Low balance: $320.10 in Marketing, under $500.00',
        '',
        'Rule: Marketing running low',
        'Balance: $320.10',
        'Alerts under: $500.00',
        'Sub account: Marketing',
        'Day: 2026-11-27 (UTC)',
        '',
        'Open in Card Console: https://console.example.com/transactions?subAccountId=sa_1',
        '',
      ].join('\n'),
    );
    expect(html).toContain('<th align="left">Balance</th><td>$320.10</td>');
    expect(html).toContain('<a href="https://console.example.com/transactions?subAccountId=sa_1">');
    expect(chatText).toBe(
      'Low balance: $320.10 in Marketing, under $500.00 (rule: Marketing running low, Marketing) <https://console.example.com/transactions?subAccountId=sa_1|Open>',
    );
  });

  it('shows an overdrawn balance as negative', () => {
    expect(
      renderAlert(balanceAlert({ balance: { cents: -1_250, currency: 'USD' } }), origin).text,
    ).toContain('Balance: -$12.50');
  });

  it('escapes markup in the HTML and the chat line, and keeps them on one line', () => {
    const { html, chatText, subject } = renderAlert(
      balanceAlert({
        subAccount: { id: 'sa_1', name: '<img src=x> & <!here>\r\nBcc: x@evil.test' },
      }),
      origin,
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x&gt; &amp; &lt;!here&gt;');
    expect(chatText).not.toContain('<!here>');
    expect(chatText).toContain('&lt;img src=x&gt; &amp; &lt;!here&gt;');
    expect(subject).not.toMatch(/[\r\n]/);
    expect(chatText).not.toMatch(/[\r\n]/);
  });

  it('holds no card number, even when the rule or sub account names one', () => {
    for (const written of [pan, grouped(' '), grouped('\u00A0')]) {
      const alert = balanceAlert({
        ruleName: `rule ${written}`,
        subAccount: { id: `sa ${written}`, name: `team ${written}` },
      });
      for (const out of outputs(alert)) {
        expect(findCardNumbers(out)).toEqual([]);
        expect(out.replace(/\D/g, '')).not.toContain(pan.slice(0, 12));
      }
      expect(JSON.stringify(safeAlert(alert))).not.toContain(pan.slice(0, 8));
    }
  });

  it('refuses a malformed one', () => {
    expect(() => renderAlert(balanceAlert({ day: '27/11/2026' }), origin)).toThrow();
    expect(() =>
      renderAlert(balanceAlert({ balance: { cents: 0.5, currency: 'USD' } }), origin),
    ).toThrow();
  });
});

describe('the three transaction kinds', () => {
  it('keep the webhook body their receivers already parse: the same fields, in the same order', () => {
    const alert: AlertMessage = sampleAlert({ description: 'ads' });
    expect(Object.keys(safeAlert(alert))).toEqual([
      'ruleName',
      'kind',
      'transactionId',
      'subAccount',
      'card',
      'merchant',
      'description',
      'amount',
      'status',
      'declineReason',
      'occurredAt',
      'linkPath',
    ]);
  });
});

describe('the subject and the first line of the text', () => {
  /** What upstream text may hold to start a line of its own, or to read otherwise. */
  const breaks: [string, string][] = [
    ['CR', '\r'],
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['NEL', '\u0085'],
    ['line separator', '\u2028'],
    ['paragraph separator', '\u2029'],
    ['vertical tab', '\u000B'],
    ['form feed', '\u000C'],
    ['NUL', '\u0000'],
    ['DEL', '\u007F'],
    ['right-to-left override', '\u202E'],
    ['first strong isolate', '\u2068'],
  ];
  const controls = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;

  it('never take a line break or control character from a merchant, card or sub account name', () => {
    for (const [what, brk] of breaks) {
      const injected = `ACME${brk}Bcc: x@evil.test${brk}${brk}Pay here`;
      for (const [kind, alert, first] of [
        [
          'a transaction',
          sampleAlert({ merchant: injected }),
          'Declined transaction: $1,234.56 at ACME Bcc: x@evil.test Pay here on card •••• 4242',
        ],
        [
          'a utilisation',
          utilisationAlert({ card: { id: 'card_7', name: injected } }),
          'Card utilisation over 80%: $850.50 of $1,000.00 spent on ACME Bcc: x@evil.test Pay here',
        ],
        [
          'a balance',
          balanceAlert({ subAccount: { id: 'sa_1', name: injected } }),
          'Low balance: $320.10 in ACME Bcc: x@evil.test Pay here, under $500.00',
        ],
      ] as const) {
        const { subject, text, chatText } = renderAlert(alert, origin);
        const label = `${what} in ${kind}`;
        expect([label, text.split('\n')[0]]).toEqual([label, first]);
        expect([label, text.split('\n')[1]]).toEqual([label, '']);
        expect([label, subject]).toEqual([label, `[Card Console] ${first}`]);
        expect([label, controls.test(subject), controls.test(chatText)]).toEqual([
          label,
          false,
          false,
        ]);
        // The body's lines are the fields' own: the name stays inside its one line.
        for (const line of text.split('\n'))
          expect([label, controls.test(line)]).toEqual([label, false]);
      }
    }
  });
});
