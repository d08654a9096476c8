import { useEffect } from 'react';

/** Each screen names the tab (and what a screen reader announces on arrival). */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Card Console`;
  }, [title]);
}
