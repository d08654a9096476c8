import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { GENESIS_HASH } from './audit-chain';
import { formatHead, logHeadEvery, parseHead } from './audit-head';
import { JsonlAuditStore } from './jsonl-audit-store';

afterEach(() => {
  vi.useRealTimers();
});

/** Waits for the logger's promise (real time: vi.waitFor would move the faked interval). */
async function calls(fn: ReturnType<typeof vi.fn>, count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (fn.mock.calls.length < count && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(fn).toHaveBeenCalledTimes(count);
}

const hash = 'ab'.repeat(32);

describe('a kept head, as `<id>:<hash>`', () => {
  it('reads what formatHead writes, and nothing else', () => {
    expect(parseHead(formatHead({ id: '42', hash }))).toEqual({ id: '42', hash });
    expect(parseHead(` 007:${hash}\n`)).toEqual({ id: '7', hash });
    for (const text of [
      '42',
      `42:${hash.slice(1)}`,
      `42:${hash.toUpperCase()}`,
      `x:${hash}`,
      `-1:${hash}`,
      `42:${hash}0`,
    ]) {
      expect(parseHead(text), text).toBeUndefined();
    }
  });
});

describe('the head in the log, every hour', () => {
  it('logs the id and hash at once and each hour after, never a record, until stopped', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const dir = await mkdtemp(join(tmpdir(), 'audit-head-'));
    try {
      const store = new JsonlAuditStore(dir, new ManualClock());
      const info = vi.fn();
      const warn = vi.fn();
      const stop = logHeadEvery({ source: store, logger: { info, warn } });
      await calls(info, 1);
      expect(info).toHaveBeenLastCalledWith({ auditHead: `0:${GENESIS_HASH}` }, 'audit trail head');

      const record = await store.append({
        actor: 'ada@example.com',
        action: 'card.reveal',
        outcome: 'success',
        reason: 'customer call',
        requestId: 'r1',
      });
      await vi.advanceTimersByTimeAsync(60 * 60_000 - 1);
      expect(info).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      await calls(info, 2);
      expect(info).toHaveBeenLastCalledWith(
        { auditHead: `${record.id}:${(await store.head()).hash}` },
        'audit trail head',
      );
      expect(JSON.stringify(info.mock.calls)).not.toContain('customer call');
      expect((await store.head()).hash).not.toBe(GENESIS_HASH);

      stop();
      await vi.advanceTimersByTimeAsync(3 * 60 * 60_000);
      expect(info).toHaveBeenCalledTimes(2);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('warns, and keeps trying each hour, when the trail cannot be read', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const head = vi
      .fn()
      .mockRejectedValueOnce(new Error('PostgreSQL is not reachable'))
      .mockResolvedValue({ id: '3', hash });
    const info = vi.fn();
    const warn = vi.fn();
    const stop = logHeadEvery({ source: { head }, logger: { info, warn }, everyMs: 1_000 });
    await calls(warn, 1);
    expect(warn.mock.calls[0]?.[1]).toMatch(/not logged/);
    await vi.advanceTimersByTimeAsync(1_000);
    await calls(info, 1);
    expect(info).toHaveBeenCalledWith({ auditHead: `3:${hash}` }, 'audit trail head');
    stop();
  });
});
