import { describe, expect, it } from 'vitest';
import { testPan } from '../../test/test-pan';
import { findCardNumbers, isLuhnValid } from '../security/card-numbers';
import { type AlertMessage, renderAlert, safeAlert } from './alert-message';

const origin = 'https://console.example.com';
const pan = testPan(1_234_567);
const last4 = pan.slice(-4);
/** The number in groups of four, as people write it. */
const grouped = (separator: string) => (pan.match(/\d{4}/g) ?? []).join(separator);

const sampleAlert = (overrides: Partial<AlertMessage> = {}): AlertMessage => ({
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

  it('when a card number is in the merchant, description or any other text, no output holds it', () => {
    expect(isLuhnValid(pan)).toBe(true);
    const spellings = [pan, grouped(' '), grouped('-'), grouped('\u00A0')];
    for (const written of spellings) {
      const alert = sampleAlert({
        ruleName: `rule ${written}`,
        merchant: `SHOP ${written} LTD`,
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
      expect(renderAlert(alert, origin).text).toContain(`Merchant: SHOP •••• ${last4} LTD`);
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
