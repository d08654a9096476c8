import { useEffect, useState } from 'react';

/** Seconds left until `seconds` from now (re-armed whenever `key` changes); calls onDone at 0. */
export function useCountdown(seconds: number | undefined, onDone?: () => void, key?: unknown) {
  const [left, setLeft] = useState(seconds);
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-arm when the caller's key changes
  useEffect(() => {
    if (seconds === undefined) return;
    setLeft(seconds);
    const startedAt = Date.now();
    const timer = setInterval(() => {
      const remaining = Math.max(0, seconds - Math.floor((Date.now() - startedAt) / 1000));
      setLeft(remaining);
      if (remaining === 0) {
        clearInterval(timer);
        onDone?.();
      }
    }, 250);
    return () => clearInterval(timer);
  }, [seconds, key]);
  return left;
}
