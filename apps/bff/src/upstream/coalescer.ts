/**
 * Shares one in-flight promise among identical concurrent calls: twenty people opening the
 * same list cause one upstream request. The entry is dropped as soon as the call settles,
 * so nothing is cached beyond the life of the request.
 */
export interface Coalescer {
  /** `onShared` runs when the call joins one already in flight (for the coalesced-read count). */
  run<T>(key: string, start: () => Promise<T>, onShared?: () => void): Promise<T>;
  readonly inFlight: number;
}

export function createCoalescer(): Coalescer {
  const pending = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, start: () => Promise<T>, onShared?: () => void): Promise<T> {
      const existing = pending.get(key);
      if (existing) {
        onShared?.();
        return existing as Promise<T>;
      }
      const promise = start().finally(() => pending.delete(key));
      pending.set(key, promise);
      return promise;
    },
    get inFlight() {
      return pending.size;
    },
  };
}
