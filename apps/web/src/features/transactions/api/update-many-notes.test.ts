import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { transactionNotes } from '../../../test/fixtures';
import { requestsTo, serve, server } from '../../../test/server';
import { BULK_NOTES_MAX, updateManyNotes } from './update-many-notes';

describe('a change of many transactions', () => {
  it('goes in requests of at most BULK_NOTES_MAX, one after the other, their answers added up', async () => {
    let inFlight = 0;
    let most = 0;
    server.use(
      serve('notes.updateMany', async ({ request }) => {
        inFlight++;
        most = Math.max(most, inFlight);
        const body = (await request.json()) as { items: { id: string }[] };
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        const [first, ...rest] = body.items;
        return HttpResponse.json({
          changed: rest.map((i) => transactionNotes({ transactionId: i.id })),
          skipped: first ? [{ transactionId: first.id, reason: 'reviewed' }] : [],
        });
      }),
    );
    const items = Array.from({ length: BULK_NOTES_MAX * 2 + 1 }, (_, i) => ({
      subAccountId: 'sa_ops',
      id: `tx_${i}`,
    }));
    const result = await updateManyNotes(items, { reviewed: true });
    const sent = await Promise.all(
      requestsTo('/api/transactions/notes', 'POST').map(
        (r) => r.json() as Promise<{ items: unknown[]; reviewed: boolean }>,
      ),
    );
    expect(sent.map((b) => b.items.length)).toEqual([BULK_NOTES_MAX, BULK_NOTES_MAX, 1]);
    expect(sent.every((b) => b.reviewed === true)).toBe(true);
    expect(sent.flatMap((b) => b.items)).toEqual(items);
    expect(most).toBe(1);
    expect(result.changed).toHaveLength(items.length - 3);
    expect(result.skipped.map((s) => s.transactionId)).toEqual(['tx_0', 'tx_500', 'tx_1000']);
  });
});
