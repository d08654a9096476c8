import http from 'node:http';

export interface DownloadResult {
  status: number;
  bytes: number;
  /** Data lines (not counting the header). */
  rows: number;
  ms: number;
  complete: boolean;
}

/** Streams a download, counting bytes and lines without keeping them; can hang up early. */
export function download(
  url: string,
  headers: Record<string, string>,
  abortAfterBytes?: number,
  onProgress?: (lines: number) => void,
): Promise<DownloadResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      let bytes = 0;
      let lines = 0;
      let done = false;
      const finish = (complete: boolean) => {
        if (done) return;
        done = true;
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          rows: Math.max(0, lines - 1),
          ms: performance.now() - started,
          complete,
        });
      };
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        onProgress?.(lines);
        if (abortAfterBytes !== undefined && bytes >= abortAfterBytes) {
          req.destroy();
          finish(false);
        }
      });
      res.on('end', () => finish(res.complete));
      res.on('close', () => finish(res.complete));
    });
    req.on('error', (error) => (abortAfterBytes === undefined ? reject(error) : undefined));
  });
}
