import { QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { createQueryClient, forgetSignedInData, keptAcrossSignOut } from './query-client';

/** A read the test answers when it says: the sign-in page's, in flight at sign-out. */
function pendingRead() {
  const answers: ((value: string) => void)[] = [];
  return {
    queryFn: () => new Promise<string>((resolve) => answers.push(resolve)),
    answer: (value: string) => answers.at(-1)?.(value),
    reads: () => answers.length,
  };
}

describe('forgetSignedInData', () => {
  it('keeps what holds nothing of the person as it is: a read of it in flight reaches the page', async () => {
    const queryClient = createQueryClient({ retry: false });
    const meta = pendingRead();
    const shown = new QueryObserver(queryClient, {
      queryKey: ['meta'],
      queryFn: meta.queryFn,
      meta: keptAcrossSignOut,
    });
    const results: (string | undefined)[] = [];
    const unsubscribe = shown.subscribe((result) => results.push(result.data));
    forgetSignedInData(queryClient);
    meta.answer('demo');
    await expect.poll(() => shown.getCurrentResult().data).toBe('demo');
    // Asked once, never blanked and asked again.
    expect(meta.reads()).toBe(1);
    expect(results.filter((data) => data === undefined).length).toBeLessThanOrEqual(1);
    expect(queryClient.getQueryData(['meta'])).toBe('demo');
    unsubscribe();
  });

  it('drops everything read for the person, whether a screen still shows it or not', () => {
    const queryClient = createQueryClient({ retry: false });
    queryClient.setQueryData(['cards'], ['a card of the person signed out']);
    queryClient.setQueryData(['session'], { email: 'finance@example.test' });
    const observer = new QueryObserver(queryClient, {
      queryKey: ['session'],
      queryFn: () => Promise.reject(new Error('401')),
      staleTime: Number.POSITIVE_INFINITY,
    });
    const unsubscribe = observer.subscribe(() => {});
    queryClient.setQueryData(['meta'], 'demo', {});
    forgetSignedInData(queryClient);
    expect(queryClient.getQueryCache().findAll({ queryKey: ['cards'] })).toEqual([]);
    expect(queryClient.getQueryCache().findAll({ queryKey: ['session'] })).toEqual([]);
    // Not marked as holding nothing of the person: dropped with the rest.
    expect(queryClient.getQueryData(['meta'])).toBeUndefined();
    unsubscribe();
  });
});
