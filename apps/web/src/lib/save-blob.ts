/**
 * Hands the browser a file to save under `name`: a Blob's URL on a hidden `<a download>`. For
 * files fetched with the `X-CSRF` header the BFF requires, which a plain link cannot send.
 */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // Give the browser a moment to start the download before the URL goes away.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
