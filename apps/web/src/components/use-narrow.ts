import { useSyncExternalStore } from 'react';

/** Where the stylesheet lays screens out for a phone. */
const NARROW = '(max-width: 640px)';

function subscribeNarrow(onChange: () => void) {
  const query = window.matchMedia?.(NARROW);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
}
const isNarrow = () => window.matchMedia?.(NARROW).matches ?? false;

/** Whether the window is a phone's width, following it as it changes. */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribeNarrow, isNarrow, () => false);
}
