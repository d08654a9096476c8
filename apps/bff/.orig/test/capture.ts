import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DestinationStream } from 'pino';

/** One response as it left the server: for secret scans over a whole test run. */
export interface CapturedResponse {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const maxBodyBytes = 4 * 1024 * 1024;

/** A `request` listener (added before the app's) that records what every response sends. */
export function captureResponses(into: CapturedResponse[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const buf = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(
            chunk as string,
            typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
          );
      if (size + buf.length <= maxBodyBytes) chunks.push(buf);
      size += buf.length;
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    }) as typeof res.write;
    res.end = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return end(...args);
    }) as typeof res.end;
    res.on('finish', () => {
      into.push({
        method: req.method ?? '',
        url: req.url ?? '',
        status: res.statusCode,
        headers: res.getHeaders() as CapturedResponse['headers'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
    });
  };
}

/** A pino destination that keeps every line in memory, synchronously. */
export function lineSink(into: string[]): DestinationStream {
  return {
    write(message: string) {
      for (const line of message.split('\n')) if (line) into.push(line);
    },
  };
}
