import { QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { createQueryClient, forgetSignedInData } from './query-client';

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
  it('drops what no screen shows, and reads again what one still shows, which then arrives', async () => {
    const queryClient = createQueryClient({ retry: false });
    queryClient.setQueryData(['cards'], ['a card of the person signed out']);
    const meta = pendingRead();
    const shown = new QueryObserver(queryClient, { queryKey: ['meta'], queryFn: meta.queryFn });
    const results: (string | undefined)[] = [];
    const unsubscribe = shown.subscribe((result) => results.push(result.data));
    expect(meta.reads()).toBe(1);

    const forgotten = forgetSignedInData(queryClient);
    expect(queryClient.getQueryData(['cards'])).toBeUndefined();
    expect(queryClient.getQueryCache().findAll({ queryKey: ['cards'] })).toEqual([]);
    // The read in flight was given up and asked again: its answer reaches the page.
    expect(meta.reads()).toBe(2);
    meta.answer('demo');
    await forgotten;
    expect(results.at(-1)).toBe('demo');
    expect(shown.getCurrentResult().status).toBe('success');
    unsubscribe();
  });

  it('forgets what the person had read even where a screen still shows it', async () => {
    const queryClient = createQueryClient({ retry: false });
    const observer = new QueryObserver(queryClient, {
      queryKey: ['session'],
      queryFn: () => Promise.reject(new Error('401')),
      staleTime: Number.POSITIVE_INFINITY,
    });
    queryClient.setQueryData(['session'], { email: 'finance@example.test' });
    const unsubscribe = observer.subscribe(() => {});
    await forgetSignedInData(queryClient);
    expect(queryClient.getQueryData(['session'])).toBeUndefined();
    unsubscribe();
  });
});
