import { type RefCallback, useCallback, useEffect, useRef, useState } from 'react';

/**
 * Whether the element has come near the window yet (and stays true once it has): a thumbnail's
 * bytes, a transaction's details are asked for only then, as `loading="lazy"` would. Without
 * an IntersectionObserver (an old browser, jsdom) everything counts as seen.
 */
export function useInView<T extends Element>(): [RefCallback<T>, boolean] {
  const [seen, setSeen] = useState(() => typeof IntersectionObserver === 'undefined');
  const observer = useRef<IntersectionObserver | undefined>(undefined);
  const ref = useCallback(
    (element: T | null) => {
      observer.current?.disconnect();
      if (!element || seen) return;
      observer.current = new IntersectionObserver(
        (entries) => {
          if (!entries.some((e) => e.isIntersecting)) return;
          setSeen(true);
          observer.current?.disconnect();
        },
        { rootMargin: '200px' },
      );
      observer.current.observe(element);
    },
    [seen],
  );
  useEffect(() => () => observer.current?.disconnect(), []);
  return [ref, seen];
}
