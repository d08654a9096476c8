import { useEffect, useMemo, useRef, useState } from 'react';

/**
 * Whole seconds left until `deadline` (ms since the epoch), rounded up: it reads 5, 4 … 1 and
 * never 0 while any time remains, then 0 once the deadline has passed, when `onDone` runs (once
 * per deadline). It re-renders exactly when the figure changes, not on a polling tick.
 */
export function useSecondsUntil(deadline: number | undefined, onDone?: () => void) {
  const [, rerender] = useState(0);
  const done = useRef(onDone);
  done.current = onDone;
  useEffect(() => {
    if (deadline === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      const ms = deadline - Date.now();
      rerender((n) => n + 1);
      if (ms <= 0) {
        done.current?.();
        return;
      }
      // Next when the shown figure changes: the next whole second before the deadline.
      timer = setTimeout(tick, ms % 1000 || 1000);
    };
    const ms = deadline - Date.now();
    if (ms <= 0) tick();
    else timer = setTimeout(tick, ms % 1000 || 1000);
    return () => clearTimeout(timer);
  }, [deadline]);
  return deadline === undefined
    ? undefined
    : Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
}

/** `seconds` from now, counted down by `useSecondsUntil`; re-armed whenever `key` changes. */
export function useCountdown(seconds: number | undefined, onDone?: () => void, key?: unknown) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-arm when the caller's key changes
  const deadline = useMemo(
    () => (seconds === undefined ? undefined : Date.now() + seconds * 1000),
    [seconds, key],
  );
  return useSecondsUntil(deadline, onDone);
}
