// auditedChange on its own: the record is appended inside the change (before its commit), a
// trail that refuses it stops the change with 503 audit_unavailable, and a record whose change
// then did not commit is taken back by a `failed` record for the same request.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../store-unavailable';
import type { AuditStore, NewAuditRecord } from './audit-store';
import {
  AuditUnavailableError,
  appendOrRefuse,
  appendOutcome,
  auditedChange,
} from './audited-change';

/** A trail in memory whose appends fail while `failing` says so. */
function memoryTrail() {
  const records: AuditRecord[] = [];
  const logged: { fields: Record<string, unknown>; message: string }[] = [];
  let failing: (record: NewAuditRecord) => boolean = () => false;
  const audit: AuditStore = {
    async append(record) {
      if (failing(record)) throw new Error('audit disk full');
      const written = { ...record, id: String(records.length + 1), at: '2026-01-01T00:00:00Z' };
      records.push(written);
      return written;
    },
    async list() {
      return { items: [...records].reverse() };
    },
  };
  const logger = {
    error: (fields: Record<string, unknown>, message: string) => logged.push({ fields, message }),
  };
  return {
    deps: { audit, logger: logger as never },
    records,
    logged,
    fail: (when: (record: NewAuditRecord) => boolean) => {
      failing = when;
    },
  };
}

const record = (detail: string): NewAuditRecord => ({
  actor: 'ana@example.test',
  role: 'admin',
  action: 'category.create',
  outcome: 'success',
  target: 'cat_1',
  after: { code: '6100', name: 'Software' },
  detail,
  requestId: 'req-1',
});

/** A store's change in a transaction of its own: the hook last, then `commit` (which may fail). */
function fakeStore(commit: () => Promise<void> = async () => {}) {
  const saved: string[] = [];
  return {
    saved,
    async change(value: string, audited?: (result: string, tx: unknown) => Promise<void>) {
      const draft = [...saved, value];
      await audited?.(value, 'tx');
      await commit();
      saved.splice(0, saved.length, ...draft);
      return value;
    },
  };
}

describe('auditedChange', () => {
  it('appends the change’s records before it commits, and returns its result', async () => {
    const trail = memoryTrail();
    const order: string[] = [];
    const store = fakeStore(async () => {
      order.push(`commit after ${trail.records.length} record(s)`);
    });
    const result = await auditedChange(
      trail.deps,
      (audited) => store.change('6100', audited),
      (value, tx) => [record(`${value} in ${tx}`), record('second')],
    );
    expect(result).toBe('6100');
    expect(order).toEqual(['commit after 2 record(s)']);
    expect(store.saved).toEqual(['6100']);
    expect(trail.records.map((r) => r.detail)).toEqual(['6100 in tx', 'second']);
  });

  it('a trail that refuses the record stops the change: 503 audit_unavailable, nothing saved', async () => {
    const trail = memoryTrail();
    const store = fakeStore();
    trail.fail(() => true);
    const refused = auditedChange(
      trail.deps,
      (audited) => store.change('6100', audited),
      () => [record('x')],
    );
    await expect(refused).rejects.toBeInstanceOf(AuditUnavailableError);
    await expect(refused).rejects.toMatchObject({
      status: 503,
      code: 'audit_unavailable',
      retryAfterSeconds: 5,
    });
    expect(store.saved).toEqual([]);
    expect(trail.records).toEqual([]);
  });

  it('the second of two records refused: the first is taken back, nothing saved', async () => {
    const trail = memoryTrail();
    const store = fakeStore();
    trail.fail((r) => r.detail === 'second');
    await expect(
      auditedChange(
        trail.deps,
        (audited) => store.change('6100', audited),
        () => [record('first'), record('second')],
      ),
    ).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(store.saved).toEqual([]);
    expect(trail.records).toMatchObject([
      { id: '1', outcome: 'success', detail: 'first' },
      {
        id: '2',
        outcome: 'failed',
        action: 'category.create',
        target: 'cat_1',
        requestId: 'req-1',
        detail: 'not_saved: record 1 was written, then the change was rolled back',
      },
    ]);
    expect(trail.records[1]).not.toHaveProperty('after');
  });

  it('a commit that fails after the record was written: the record is taken back, the error passes', async () => {
    const trail = memoryTrail();
    const lost = new StoreUnavailableError('postgres', 'commit');
    const store = fakeStore(async () => {
      throw lost;
    });
    await expect(
      auditedChange(
        trail.deps,
        (audited) => store.change('6100', audited),
        () => [record('x')],
      ),
    ).rejects.toBe(lost);
    expect(store.saved).toEqual([]);
    expect(trail.records.map((r) => [r.outcome, r.detail])).toEqual([
      ['success', 'x'],
      ['failed', 'not_saved: record 1 was written, then the change was rolled back'],
    ]);
  });

  it('a transaction run again (a deadlock retried) takes back the first run’s records', async () => {
    const trail = memoryTrail();
    let runs = 0;
    const result = await auditedChange(
      trail.deps,
      async (audited) => {
        for (;;) {
          runs++;
          try {
            await audited('6100', 'tx');
            if (runs === 1) throw Object.assign(new Error('deadlock'), { code: '40P01' });
            return '6100';
          } catch (error) {
            if (runs > 1) throw error;
          }
        }
      },
      () => [record('x')],
    );
    expect(result).toBe('6100');
    expect(trail.records.map((r) => [r.id, r.outcome, r.detail])).toEqual([
      ['1', 'success', 'x'],
      ['2', 'failed', 'not_saved: record 1 was written, then its transaction was run again'],
      ['3', 'success', 'x'],
    ]);
  });

  it('a store that refuses after the record (notCommitted) gets the record taken back', async () => {
    const trail = memoryTrail();
    const outcome = await auditedChange(
      trail.deps,
      async (audited) => {
        await audited('added');
        return 'duplicate';
      },
      () => [record('x')],
      (result) => result !== 'added',
    );
    expect(outcome).toBe('duplicate');
    expect(trail.records.map((r) => r.detail)).toEqual([
      'x',
      'not_saved: record 1 was written, then the store refused the change after it was recorded',
    ]);
  });

  it('no hook run (nothing to change): nothing recorded', async () => {
    const trail = memoryTrail();
    const result = await auditedChange(
      trail.deps,
      async () => undefined,
      () => [record('x')],
    );
    expect(result).toBeUndefined();
    expect(trail.records).toEqual([]);
  });

  it('a taking back that cannot be written is logged with the record it meant', async () => {
    const trail = memoryTrail();
    const store = fakeStore(async () => {
      trail.fail(() => true);
      throw new Error('connection lost at commit');
    });
    await expect(
      auditedChange(
        trail.deps,
        (audited) => store.change('6100', audited),
        () => [record('x')],
      ),
    ).rejects.toThrow('connection lost at commit');
    expect(trail.logged).toMatchObject([
      {
        fields: { requestId: 'req-1', action: 'category.create', auditRecordId: '1' },
        message: 'audit record of a change that was not saved could not be taken back',
      },
    ]);
  });
});

describe('the records of a change made elsewhere', () => {
  it('appendOrRefuse: a refused record is a 503 with the given words', async () => {
    const trail = memoryTrail();
    trail.fail(() => true);
    await expect(
      appendOrRefuse(trail.deps.audit, record('x'), 'Nothing was revealed.'),
    ).rejects.toMatchObject({
      status: 503,
      code: 'audit_unavailable',
      message: 'Nothing was revealed.',
    });
    trail.fail(() => false);
    expect(await appendOrRefuse(trail.deps.audit, record('y'))).toMatchObject({ id: '1' });
  });

  it('appendOutcome: true when written; false and logged when lost', async () => {
    const trail = memoryTrail();
    expect(await appendOutcome(trail.deps, record('kept'))).toBe(true);
    trail.fail(() => true);
    expect(await appendOutcome(trail.deps, { ...record('lost'), outcome: 'failed' })).toBe(false);
    expect(trail.records.map((r) => r.detail)).toEqual(['kept']);
    expect(trail.logged).toMatchObject([
      {
        fields: { requestId: 'req-1', action: 'category.create', outcome: 'failed' },
        message:
          'audit outcome of a card service change could not be written; its started record stands',
      },
    ]);
  });
});

describe('auditedChange with a trail that takes many records at once', () => {
  /** `memoryTrail` with `appendMany`: all of a change's records in one call, or none. */
  function batchTrail(fails: boolean) {
    const trail = memoryTrail();
    const calls: number[] = [];
    const audit: AuditStore = {
      ...trail.deps.audit,
      async appendMany(records) {
        calls.push(records.length);
        if (fails) throw new Error('audit disk full');
        const written: AuditRecord[] = [];
        for (const r of records) written.push(await trail.deps.audit.append(r));
        return written;
      },
    };
    return { ...trail, deps: { ...trail.deps, audit }, calls };
  }

  it("appends a change's records in one call before it commits", async () => {
    const trail = batchTrail(false);
    const store = fakeStore();
    await auditedChange(
      trail.deps,
      (audited) => store.change('6100', audited),
      () => [record('first'), record('second'), record('third')],
    );
    expect(trail.calls).toEqual([3]);
    expect(trail.records.map((r) => r.detail)).toEqual(['first', 'second', 'third']);
    expect(store.saved).toEqual(['6100']);
  });

  it('a trail that refuses them stops the change: nothing saved, nothing recorded', async () => {
    const trail = batchTrail(true);
    const store = fakeStore();
    await expect(
      auditedChange(
        trail.deps,
        (audited) => store.change('6100', audited),
        () => [record('first'), record('second')],
      ),
    ).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(store.saved).toEqual([]);
    expect(trail.records).toEqual([]);
  });
});
