// The audit export's text cells and the audit screen's records: a card number an older build
// let into a record (the trail keeps records as they were) is shown masked, whatever joins its
// digits. Made at run time.
import { describe, expect, it } from 'vitest';
import { withCheckDigit } from '../../test/reference-luhn';
import { auditCsvColumns, toAuditCsvRecord } from './audit-csv';
import { shownRecord } from './audit-shown';

const pan = withCheckDigit('411111111111111');
const inFours = (joiner: string) => pan.match(/.{4}/g)?.join(joiner) ?? pan;
const masked = `•••• ${pan.slice(-4)}`;

describe('an audit record in the CSV', () => {
  it.each([
    ['two spaces', '  '],
    ['colons', ':'],
    ['spaced dashes', ' - '],
  ])('shows a card number written with %s masked, in every text cell', (_name, joiner) => {
    const written = `card ${inFours(joiner)}`;
    const record = toAuditCsvRecord(
      {
        id: 'r1',
        at: '2026-11-26T12:30:00.000Z',
        actor: written,
        action: 'card.update',
        outcome: 'success',
        reason: written,
        detail: `=${written}`,
        target: written,
        before: { name: written },
        after: { name: written },
        requestId: 'req-1',
      } as Parameters<typeof toAuditCsvRecord>[0],
      () => '2026-11-26T07:30:00-05:00',
    );
    const columns = auditCsvColumns('America/New_York');
    const cell = (name: string) => record[columns.indexOf(name)];
    for (const name of ['who', 'target', 'reason', 'name before', 'name after']) {
      expect(cell(name), name).toBe(`card ${masked}`);
    }
    // Masked first, then kept from running as a formula.
    expect(cell('detail')).toBe(`'=card ${masked}`);
    expect(record.join('|')).not.toContain(pan.slice(0, 4));
  });
});

describe('an audit record on the audit screen', () => {
  it('shows every text masked, its id, time and request id as written', () => {
    const written = `card ${inFours('  ')}`;
    const record: Parameters<typeof shownRecord>[0] = {
      id: pan,
      at: '2026-11-26T12:30:00.000Z',
      actor: written,
      action: 'transaction.annotate',
      outcome: 'success',
      target: written,
      reason: written,
      detail: written,
      before: { memo: written, tags: [written, 'kept'], minimumCents: 100 },
      after: { name: written, reviewed: true },
      requestId: written,
    };
    const shown = shownRecord(record);
    const hidden = `card ${masked}`;
    expect(shown).toEqual({
      ...record,
      actor: hidden,
      target: hidden,
      reason: hidden,
      detail: hidden,
      before: { memo: hidden, tags: [hidden, 'kept'], minimumCents: 100 },
      after: { name: hidden, reviewed: true },
    });
  });
});
