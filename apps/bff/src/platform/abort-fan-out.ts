/**
 * Calls on a caller's AbortSignal, however many at once, hold one listener on it between them.
 *
 * One signal is often shared by many concurrent upstream calls: a limit preview's reads (up
 * to 16 at once), an Overview's day walks, and every background walk of the process, which all
 * carry the shutdown's cut-off signal. Each attempt and each retry wait used to add a listener
 * of its own, so past 10 at once Node warned of a leak (MaxListenersExceededWarning) under
 * load, rightly: the listeners grew with the load. Here a signal gets one listener the first
 * time anything waits on it, which calls everyone waiting then; each caller stops waiting
 * when it is done, and the signal's listener goes with the signal.
 */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `listener` once when `signal` aborts (not if already aborted); returns how to stop. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let callers = waiting.get(signal);
  if (!callers) {
    const set = new Set<() => void>();
    callers = set;
    waiting.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        const now = [...set];
        set.clear();
        for (const call of now) call();
      },
      { once: true },
    );
  }
  const call = () => listener();
  callers.add(call);
  const set = callers;
  return () => void set.delete(call);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let stop = () => {};
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
    if (signal) {
      stop = onAbort(signal, () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }
  });
}

/** `promise`, or the signal's reason as a rejection as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => {
      promise.catch(() => {});
      reject(signal.reason);
    });
    promise.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}
