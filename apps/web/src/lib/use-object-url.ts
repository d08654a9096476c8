import { useEffect, useState } from 'react';

/**
 * A Blob's object URL for as long as it is shown; revoked when it goes. A new Blob replaces the
 * URL in one step (never undefined between them), so what shows it is not taken off the page.
 */
export function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) {
      setUrl(undefined);
      return;
    }
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url;
}
