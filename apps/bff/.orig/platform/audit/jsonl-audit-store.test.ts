import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditRecordSchema } from '@card-console/shared/api/audit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewAuditRecord } from '../../http/deps';
import { ManualClock } from '../../test/manual-clock';
import { JsonlAuditStore } from './jsonl-audit-store';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

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

  it('lists newest first in pages that stay stable while records arrive', async () => {
    const store = new JsonlAuditStore(dir, new ManualClock());
    for (let i = 0; i < 7; i++) await store.append(record(i));
    const first = await store.list({ limit: 3 });
    expect(first.items.map((r) => r.cardId)).toEqual(['card_6', 'card_5', 'card_4']);
    await store.append(record(99));
    const second = await store.list({ limit: 3, cursor: first.nextCursor });
    expect(second.items.map((r) => r.cardId)).toEqual(['card_3', 'card_2', 'card_1']);
    const last = await store.list({ limit: 3, cursor: second.nextCursor });
    expect(last.items.map((r) => r.cardId)).toEqual(['card_0']);
    expect(last.nextCursor).toBeUndefined();
  });

  it('stamps the time from the injected clock', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 2, 3, 4, 5));
    const store = new JsonlAuditStore(dir, clock);
    expect((await store.append(record(1))).at).toBe('2030-01-02T03:04:05.000Z');
  });

  it('carries on after a restart, and after a torn last line from a crash', async () => {
    const first = new JsonlAuditStore(dir, new ManualClock());
    await first.append(record(1));
    await appendFile(first.path, '{"id":"2","at":"20');
    const second = new JsonlAuditStore(dir, new ManualClock());
    const written = await second.append(record(3));
    expect(written.id).toBe('3');
    const { items } = await second.list({ limit: 10 });
    expect(items.map((r) => r.cardId)).toEqual(['card_3', 'card_1']);
    const lines = (await readFile(first.path, 'utf8')).split('\n');
    expect(JSON.parse(lines[2] ?? '').cardId).toBe('card_3');
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
