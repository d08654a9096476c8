import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditRecordSchema } from '@card-console/shared/api/audit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import type { NewAuditRecord } from './audit-store';
import { auditStoreContract } from './audit-store.contract';
import { JsonlAuditStore } from './jsonl-audit-store';
import { verifyChain } from './verify-chain';

auditStoreContract('JsonlAuditStore', async () => {
  const own = await mkdtemp(join(tmpdir(), 'audit-contract-'));
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  return {
    store: new JsonlAuditStore(own, clock),
    tick: async (ms) => clock.advance(ms),
    close: () => rm(own, { recursive: true, force: true, maxRetries: 5 }),
  };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-'));
});
afterEach(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

const record = (n: number): NewAuditRecord => ({
  actor: 'ada@example.com',
  role: 'admin',
  action: 'card.update',
  outcome: 'success',
  cardId: `card_${n}`,
  requestId: `req-${n}`,
});

describe('the JSON-lines audit store', () => {
  it('writes concurrent appends as whole lines, one per record, in order', async () => {
    const store = new JsonlAuditStore(dir, new ManualClock());
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.append(record(i))));
    const lines = (await readFile(store.path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(200);
    const parsed = lines.map((line) => auditRecordSchema.parse(JSON.parse(line)));
    expect(parsed.map((r) => r.id)).toEqual(Array.from({ length: 200 }, (_, i) => String(i + 1)));
    expect(parsed.map((r) => r.cardId)).toEqual(Array.from({ length: 200 }, (_, i) => `card_${i}`));
  });

  it('stamps the time from the injected clock, never before the previous record', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 2, 3, 4, 5));
    const store = new JsonlAuditStore(dir, clock);
    expect((await store.append(record(1))).at).toBe('2030-01-02T03:04:05.000Z');
    clock.set(Date.UTC(2030, 0, 2, 3, 0, 0));
    expect((await store.append(record(2))).at).toBe('2030-01-02T03:04:05.000Z');
    const reopened = new JsonlAuditStore(dir, clock);
    expect((await reopened.append(record(3))).at).toBe('2030-01-02T03:04:05.000Z');
  });

  it('carries on the chain after a restart, and after a torn last line from a crash', async () => {
    const first = new JsonlAuditStore(dir, new ManualClock());
    await first.append(record(1));
    await appendFile(first.path, '{"id":"2","at":"20');
    const second = new JsonlAuditStore(dir, new ManualClock());
    // The torn record was never acknowledged: its id goes to the next one.
    const written = await second.append(record(3));
    expect(written.id).toBe('2');
    const { items } = await second.list({ limit: 10 });
    expect(items.map((r) => r.cardId)).toEqual(['card_3', 'card_1']);
    const lines = (await readFile(first.path, 'utf8')).split('\n');
    expect(JSON.parse(lines[2] ?? '').cardId).toBe('card_3');
    expect(await verifyChain(second.records())).toMatchObject({ verified: 2 });
  });

  it('continues a file written before the chain: its records are vouched for by the first link', async () => {
    const legacy = [1, 2, 3].map((n) =>
      JSON.stringify({ ...record(n), id: String(n), at: '2029-12-31T00:00:00.000Z' }),
    );
    await writeFile(join(dir, 'audit.jsonl'), `${legacy.join('\n')}\n`);
    const store = new JsonlAuditStore(dir, new ManualClock(Date.UTC(2030, 0, 1)));
    expect((await store.append(record(4))).id).toBe('4');
    await store.append(record(5));
    expect((await store.list({ limit: 10 })).items.map((r) => r.id)).toEqual([
      '5',
      '4',
      '3',
      '2',
      '1',
    ]);
    expect(await verifyChain(store.records())).toMatchObject({ verified: 2, unchained: 3 });
    // A pre-chain line edited afterwards no longer matches what the first link vouched for.
    const text = await readFile(store.path, 'utf8');
    await writeFile(store.path, text.replace('card_2', 'card_9'));
    expect((await verifyChain(store.records())).problem).toMatchObject({
      id: '4',
      kind: 'out-of-order',
    });
  });

  it('hashes what is on disk: a field added to a line is a change', async () => {
    const store = new JsonlAuditStore(dir, new ManualClock());
    await store.append(record(1));
    await store.append(record(2));
    const lines = (await readFile(store.path, 'utf8')).trimEnd().split('\n');
    const first = JSON.parse(lines[0] ?? '');
    lines[0] = JSON.stringify({ ...first, note: 'added' });
    await writeFile(store.path, `${lines.join('\n')}\n`);
    expect((await verifyChain(store.records())).problem).toMatchObject({
      id: '1',
      kind: 'changed',
    });
  });

  it('refuses a record holding a card number or a secret field, writing nothing', async () => {
    const store = new JsonlAuditStore(dir, new ManualClock());
    const pan = ['4242', '4242', '4242', '4242'].join('');
    await expect(store.append({ ...record(1), reason: `customer said ${pan}` })).rejects.toThrow(
      /card number/,
    );
    await expect(
      store.append({ ...record(1), detail: `pan ${pan.slice(0, 15)}${'8'}` }),
    ).resolves.toBeDefined();
    await expect(
      store.append({ ...record(2), cvv: '123' } as NewAuditRecord),
    ).resolves.not.toHaveProperty('cvv');
    const text = await readFile(store.path, 'utf8');
    expect(text).not.toContain(pan);
    expect(text).not.toContain('"cvv"');
  });
});
