import archiver from 'archiver';
import type { Response } from 'express';

/**
 * Streams files into a ZIP on `res`, one at a time: the next file is read only once the
 * archive has taken the last one, and the archive waits for the response (backpressure), so a
 * period of receipts never sits in memory at once. Stored, not compressed: pictures and PDFs
 * are compressed already. Stops when the client goes away.
 */
export async function streamZip(
  res: Response,
  files: AsyncGenerator<{ name: string; content: Buffer; at: Date }>,
  clientGone: AbortSignal,
): Promise<void> {
  const archive = archiver('zip', { store: true });
  const done = new Promise<void>((resolve) => {
    res.once('close', resolve);
    res.once('finish', resolve);
  });
  archive.on('error', () => res.destroy());
  archive.pipe(res);
  try {
    for await (const file of files) {
      if (clientGone.aborted) break;
      const taken = new Promise<void>((resolve) => archive.once('entry', () => resolve()));
      archive.append(file.content, { name: file.name, date: file.at });
      await Promise.race([taken, done]);
    }
  } finally {
    await files.return(undefined);
  }
  if (clientGone.aborted) {
    archive.abort();
    res.destroy();
    return;
  }
  await archive.finalize();
  await done;
}
