import { describe, expect, it } from 'vitest';
import { subAccountNameKey } from './sub-accounts';
import { transactionExportQuerySchema } from './transactions';

describe('the export query', () => {
  const base = { subAccountId: 'sa_1' };

  it('takes an IANA zone and the days the file is named after', () => {
    const query = { ...base, tz: 'America/New_York', fromDay: '2026-11-01', toDay: '2026-11-21' };
    expect(transactionExportQuerySchema.parse(query)).toEqual(query);
    expect(transactionExportQuerySchema.parse({ ...base, tz: 'UTC' }).tz).toBe('UTC');
  });

  it.each([
    ['an unknown zone', { tz: 'Mars/Olympus_Mons' }, 'tz'],
    ['an offset instead of a zone', { tz: '+05:00' }, 'tz'],
    ['an empty zone', { tz: '' }, 'tz'],
    ['a day that does not exist', { fromDay: '2026-02-30' }, 'fromDay'],
    ['a day in another format', { toDay: '21/11/2026' }, 'toDay'],
    ['days in the wrong order', { fromDay: '2026-11-21', toDay: '2026-11-01' }, 'fromDay'],
  ])('refuses %s, naming the parameter', (_, extra, path) => {
    const result = transactionExportQuerySchema.safeParse({ ...base, ...extra });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([path]);
  });
});

describe('sub-account name keys', () => {
  it('are alike for names that differ only in case, surrounding spaces or width', () => {
    const key = subAccountNameKey('Marketing');
    for (const name of ['MARKETING', '  marketing\t', 'Ｍａｒｋｅｔｉｎｇ', 'marKeting']) {
      expect(subAccountNameKey(name), name).toBe(key);
    }
    expect(subAccountNameKey('Straße')).toBe(subAccountNameKey('STRASSE'));
  });

  it('differ for names that read differently', () => {
    const key = subAccountNameKey('Marketing');
    for (const name of ['Marketing EMEA', 'Marketting', 'Márketing', 'Market ing']) {
      expect(subAccountNameKey(name), name).not.toBe(key);
    }
  });
});
