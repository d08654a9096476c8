import { describe, expect, it } from 'vitest';
import { fieldsOf, pictureFieldsOf } from './receipt-fields';

const today = new Date('2026-11-30T15:00:00Z');
const read = (text: string) => fieldsOf(text, { today });

const grocery = `CORNER MARKET
123 Main Street
Springfield, IL 62701
(217) 555-0134
11/24/2026 14:32
MILK 2% 3.49
BREAD 2.99
EGGS DOZEN 4.29
SUBTOTAL 10.77
TAX 8.25% 0.89
TOTAL $11.66
VISA TEND $11.66
CHANGE DUE 0.00
THANK YOU FOR SHOPPING`;

const restaurant = `*** THE BLUE DOOR BISTRO ***
450 Harbor Blvd
Boston, MA 02110
Tel (617) 555-0199
Server: Maria Table 12
Guest Check #4471
Nov 22, 2026 8:41 PM
2 Burger 32.00
1 Caesar Salad 11.00
Subtotal 43.00
Tax 3.55
Total 46.55
Tip 9.30
Total 55.85
Visa ****4242 55.85
Thank you!`;

const hotel = `GRAND PLAZA HOTEL
1 Plaza Square
Chicago, IL 60601
Guest Folio
Arrival: 11/20/2026 Departure: 11/22/2026
Room 1412
11/20/2026 Room Charge 189.00
11/20/2026 Room Tax 32.13
11/21/2026 Room Charge 189.00
11/21/2026 Room Tax 32.13
Total Charges 442.26
Visa Payment -442.26
Balance Due 0.00`;

const saasInvoice = `Invoice
Invoice number 8F3A2C1D-0007
Date of issue November 24, 2026
Date due December 24, 2026
Acme Cloud, Inc.
500 Howard Street
San Francisco, CA 94105
Bill to
ana@example.com
$1,212.88 USD due December 24, 2026
Description Qty Unit price Amount
Pro plan (seats) 12 $100.00 $1,200.00
Usage 1 $12.88 $12.88
Subtotal $1,212.88
Total $1,212.88
Amount due $1,212.88 USD`;

/** OCR of a crumpled photo: O for 0, I for 1, S for $, a speck line above the header. */
const ocrNoisy = `~ .
SAFEWAY
Store 1234 Dir Jane
5O0 El Camino Real
1I/2O/2O26 1O:12
BANANAS 1.2O
COFFEE 8.99
SUB-TOTAL 1O.19
TAX O.OO
T0TAL S1O.19
CHANGE 9.81`;

describe('a receipt read whole', () => {
  it('a grocery receipt: its TOTAL, not the subtotal, tax or tender; the header name', () => {
    expect(read(grocery)).toEqual({
      totalCents: 1166,
      date: '2026-11-24',
      merchant: 'CORNER MARKET',
    });
  });

  it('a restaurant with a tip line: the last total (the grand total), the name without its stars', () => {
    expect(read(restaurant)).toEqual({
      totalCents: 5585,
      date: '2026-11-22',
      merchant: 'THE BLUE DOOR BISTRO',
    });
  });

  it('a hotel folio paid in full: the charges total (balance due 0.00 is no total), the departure date', () => {
    expect(read(hotel)).toEqual({
      totalCents: 44226,
      date: '2026-11-22',
      merchant: 'GRAND PLAZA HOTEL',
    });
  });

  it('a SaaS invoice: amount due with thousands, the date of issue (not due), the seller', () => {
    expect(read(saasInvoice)).toEqual({
      totalCents: 121288,
      date: '2026-11-24',
      merchant: 'Acme Cloud, Inc.',
    });
  });

  it('OCR noise: O, I and S read back as digits and $, T0TAL as TOTAL', () => {
    expect(read(ocrNoisy)).toEqual({
      totalCents: 1019,
      date: '2026-11-20',
      merchant: 'SAFEWAY',
    });
  });
});

describe('the total', () => {
  it.each([
    ['TOTAL $12.88', 1288],
    ['Total due: 12.88', 1288],
    ['Amount due 12.88', 1288],
    ['AMOUNT PAID USD 12.88', 1288],
    ['Grand Total 1,234.56', 123456],
    ['Total USD 12.88', 1288],
    ['Balance due $ 412.30', 41230],
    ['TOTAL 12 .88', 1288],
    ['TOTAL 12,88', 1288],
    ['TOTAL 1O.5O', 1050],
    ['Total (incl. tax) 21.40', 2140],
    ['Total with tip 51.30', 5130],
    ['TOTAL 2 ITEMS 7.00', 700],
  ])('%s is %i cents', (line, cents) => {
    expect(read(`Subtotal 5.00\n${line}`).totalCents).toBe(cents);
  });

  it.each([
    'Subtotal 12.88',
    'SUB-TOTAL 12.88',
    'Sub Total 12.88',
    'Total Tax 12.88',
    'Tip 12.88',
    'Gratuity 12.88',
    'Service charge 12.88',
    'Change 12.88',
    'Cash tendered 12.88',
    'Total discount 12.88',
    'Total savings 12.88',
    'Previous balance 12.88',
    'Total before tip 12.88',
  ])('%s is never the total', (line) => {
    // Two items, so the fallback has nothing to sum to the line's amount either.
    expect(read(`Widget 3.00\nGadget 4.00\n${line}`).totalCents).toBeUndefined();
  });

  it('reads a label whose amount is laid out on the line below', () => {
    expect(read('Acme Cloud\nAmount due\n$12.88\nPay online').totalCents).toBe(1288);
  });

  it('does not pair labels and amounts laid out as two lists', () => {
    // The line below "Total" is the subtotal's value; the amounts before the largest add up.
    expect(read('Subtotal\nTax\nTotal\n$40.00\n$3.30\n$43.30').totalCents).toBe(4330);
    // With a discount nothing adds up: no total rather than the subtotal's 40.00.
    expect(read('Subtotal\nDiscount\nTotal\n$40.00\n$5.00-\n$35.00').totalCents).toBeUndefined();
    expect(read('Acme Cloud\nTotal\n$40.00\n$5.00-\n$35.00').totalCents).toBeUndefined();
  });

  it('leaves out the suggested tip table of a check printed before tipping', () => {
    const check =
      'Subtotal 40.00\nTax 3.30\nTotal 43.30\n18% Tip $7.79 Total $51.09\n20%: Total $51.96';
    expect(read(check).totalCents).toBe(4330);
  });

  it('an amount past ten billion dollars is no total (a number or a misread, beyond any charge)', () => {
    expect(read('TOTAL $100000000000000000.00').totalCents).toBeUndefined();
    expect(read('TOTAL $10,000,000,000.01').totalCents).toBeUndefined();
    expect(read('TOTAL $10,000,000,000.00').totalCents).toBe(1_000_000_000_000);
    // A run of digits that is no amount leaves the real total to be read.
    expect(read('ORDER 123456789012345678.00\nTOTAL $12.88').totalCents).toBe(1288);
  });

  it('a refund (TOTAL 12.88-) has no total', () => {
    expect(read('RETURN\nSOCKS 12.88-\nTOTAL 12.88-').totalCents).toBeUndefined();
  });

  it('a card payment line answers when the total line is missing', () => {
    expect(read('Coffee 3.50\nMuffin 2.75\nVisa $6.25').totalCents).toBe(625);
  });

  it('two different card payments (a split bill) are no total', () => {
    expect(read('Dinner 80.00\nVisa 50.00\nMastercard 30.00').totalCents).toBeUndefined();
  });

  it('with no total line: the only amount on the page', () => {
    expect(read('Thank you for your gift of $50.00')).toEqual({ totalCents: 5000 });
  });

  it('with no total line: the largest amount when the amounts just before add up to it', () => {
    expect(read('Widget 3.49\nGadget 2.99\n6.48').totalCents).toBe(648);
    expect(read('Sub 40.00\nTax 3.30\n43.30').totalCents).toBe(4330);
  });

  it('with no total line: no answer when the largest amount is one item or the cash handed over', () => {
    expect(read('Widget 9.00\nGadget 4.00').totalCents).toBeUndefined();
    expect(read('Widget 9.00\nGadget 4.00\nCash 20.00').totalCents).toBeUndefined();
    // The largest appearing twice: an item and its total, or two items, cannot be told apart.
    expect(read('Widget 9.00\nGadget 9.00\nNut 1.00').totalCents).toBeUndefined();
  });

  it('takes no rate, date or count for an amount', () => {
    expect(read('TOTAL 8.25%').totalCents).toBeUndefined();
    expect(read('Total 24.11.2026').totalCents).toBeUndefined();
    expect(read('TOTAL ITEMS 3').totalCents).toBeUndefined();
  });
});

describe('the date', () => {
  it.each([
    ['11/24/2026', '2026-11-24'],
    ['11/24/26 2:05 PM', '2026-11-24'],
    ['2026-11-24T14:32:00', '2026-11-24'],
    ['Nov 24, 2026', '2026-11-24'],
    ['24 Nov 2026', '2026-11-24'],
    ['24-Nov-26', '2026-11-24'],
    ['November 24th 2026', '2026-11-24'],
    ['24-11-2026', '2026-11-24'],
    ['Sept. 3, 2026', '2026-09-03'],
  ])('%s is %s', (written, day) => {
    expect(read(`Shop\n${written}`).date).toBe(day);
  });

  it('reads day and month US-style when both could be a month', () => {
    expect(read('03/04/2026').date).toBe('2026-03-04');
  });

  it('ignores a date after tomorrow or older than two years, and impossible days', () => {
    expect(read('12/02/2026').date).toBeUndefined();
    expect(read('12/01/2026').date).toBe('2026-12-01');
    expect(read('11/29/2024').date).toBeUndefined();
    expect(read('11/30/2024').date).toBe('2024-11-30');
    expect(read('02/30/2026').date).toBeUndefined();
    expect(read('Printed 12/25/2026\nSold 10/01/2026').date).toBe('2026-10-01');
  });

  it('prefers the date by a Date label to an earlier one', () => {
    expect(read('Order 10/02/2026\nPromo until 12/01/2026\nDate: 10/05/2026').date).toBe(
      '2026-10-05',
    );
    expect(read('Ref 10/02/2026\nInvoice date\n10/06/2026').date).toBe('2026-10-06');
  });

  it('skips dates labelled as due, expiry or arrival', () => {
    expect(read('Due date 11/28/2026\nExp 11/27/2026\n11/03/2026').date).toBe('2026-11-03');
  });

  it('does not read an amount after a month word as a year', () => {
    expect(read('2 MAYO 26.50').date).toBeUndefined();
  });
});

describe('the merchant', () => {
  it('skips what is not a name in the header', () => {
    const header = [
      '================',
      'Welcome to',
      'Sales Receipt',
      'Order #A-1042',
      'Store #0871',
      '55 Elm St.',
      'www.bluebottle.example',
      '11/24/2026 09:15',
      'Blue Bottle Coffee',
      'Latte 5.25',
    ].join('\n');
    expect(read(header).merchant).toBe('Blue Bottle Coffee');
  });

  it('is none when the header holds no name before the items', () => {
    expect(read('123 Main Street\n(217) 555-0134\nLatte 5.25\nMarket').merchant).toBeUndefined();
  });

  it('keeps the name as written: collapsed spaces, its own punctuation, at most 80 characters', () => {
    expect(read('  Joe’s   Diner & Grill (Downtown)  ').merchant).toBe(
      'Joe’s Diner & Grill (Downtown)',
    );
    expect(read('99 Ranch Market').merchant).toBe('99 Ranch Market');
    expect(read(`${'Long Name '.repeat(10)}`).merchant).toHaveLength(79);
  });

  it.each([
    ['oo The Verizon Wireless', 'The Verizon Wireless'],
    ['i" Bestbuy 0042, Inc. -', 'Bestbuy 0042, Inc.'],
    ['Shell 0il 57442 #106', 'Shell Oil 57442 #106'],
    ['BESTBUY 0042 #135', 'BESTBUY 0042 #135'],
    ['7-ELEVEN #2211', '7-ELEVEN #2211'],
    ['H&M', 'H&M'],
  ])('reads the OCR header %j as %j', (line, name) => {
    expect(read(`${line}\nPump 3\n1939 Main St`).merchant).toBe(name);
  });

  it('takes no pump, lane or register number for the name', () => {
    expect(read('Pump 3\nLane 02\nREG 4 TRN 1182\nShell').merchant).toBe('Shell');
  });

  it('drops a name that holds a card number', () => {
    const named = 'Bobs Bait and Tackle Shop of the Greater Seattle Area';
    expect(read(`${named} 4111 1111 1111 1111`).merchant).toBeUndefined();
    expect(read(`${named} 1042`).merchant).toBe(`${named} 1042`);
  });
});

describe('a picture read twice', () => {
  const undated = grocery.replace('11/24/2026 14:32\n', '');
  const againReads = (text: string) => {
    const asked: string[] = [];
    const again = async () => {
      asked.push(text);
      return text;
    };
    return { asked, again };
  };

  it('is not read again when the first reading has its date', async () => {
    const second = againReads(grocery.replace('TOTAL $11.66', 'TOTAL $99.99'));
    expect(await pictureFieldsOf(grocery, second.again, { today })).toEqual(read(grocery));
    expect(second.asked).toHaveLength(0);
  });

  it('takes only the date of the second reading, never its total', async () => {
    const second = againReads(grocery.replace('TOTAL $11.66', 'TOTAL $99.99'));
    const fields = await pictureFieldsOf(undated, second.again, { today });
    expect(second.asked).toHaveLength(1);
    expect(fields).toEqual({ ...read(undated), date: '2026-11-24' });
    expect(fields.totalCents).toBe(1166);
  });

  it('keeps the first reading whole when the second finds no date either', async () => {
    const second = againReads(undated.replace('TOTAL $11.66', 'TOTAL $99.99'));
    expect(await pictureFieldsOf(undated, second.again, { today })).toEqual(read(undated));
  });
});
