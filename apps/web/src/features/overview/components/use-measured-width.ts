import { useLayoutEffect, useRef, useState } from 'react';

/**
 * The element's width in CSS pixels, kept current as it resizes: a chart drawn in these units
 * keeps its text at the size the stylesheet gives, at any width (a viewBox would scale it).
 * `fallback` until measured, and where nothing is laid out (jsdom).
 */
export function useMeasuredWidth<T extends Element>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState<number | undefined>(undefined);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const read = () => {
      const measured = Math.floor(element.getBoundingClientRect().width);
      setWidth(measured > 0 ? measured : undefined);
    };
    read();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(read);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width ?? fallback] as const;
}
