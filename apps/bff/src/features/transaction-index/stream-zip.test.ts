// streamZip over real HTTP: a reader that pauses holds the ZIP back (files are read from the
// store only as the download drains), and however the download ends (finished, left, cut by a
// shutdown, a file that cannot be read) streamZip settles, so the export's slot is given back.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../platform/logger';
import { noMetrics } from '../../platform/metrics/metrics';
import { lineSink } from '../../test/capture';
import { unzip } from '../../test/zip';
import { streamZip, ZIP_CHUNK_BYTES, type ZipFile } from './stream-zip';

const MB = 1024 * 1024;

/**
 * What the kernel may hold for a reader that reads nothing: the server's send buffer (at most
 * tcp_wmem's maximum) and the client's first receive window (tcp_rmem's default; it grows only
 * as the client reads).
 */
function kernelAllowance(): number {
  const field = (file: string, i: number) =>
    Number(readFileSync(`/proc/sys/net/ipv4/${file}`, 'utf8').trim().split(/\s+/)[i]);
  return field('tcp_wmem', 2) + field('tcp_rmem', 1);
}

/** A file of `bytes` whose content says which it is (each byte the file's number). */
const fileOf = (n: number, bytes: number): ZipFile => ({
  name: `receipt ${n}.pdf`,
  content: Buffer.alloc(bytes, n),
  at: new Date(Date.UTC(2026, 10, n + 1, 12)),
});

/** Files as a store would give them, counting those read and noting when they were closed. */
function storeOf(sizes: number[], options: { failAt?: number; gate?: Promise<void> } = {}) {
  const state = { read: 0, closed: false, lastGiven: false };
  async function* files(): AsyncGenerator<ZipFile> {
    try {
      for (const [i, bytes] of sizes.entries()) {
        if (i === 1 && options.gate) await options.gate;
        if (i === options.failAt) throw new Error('the store went away');
        state.read++;
        yield fileOf(i + 1, bytes);
      }
      state.lastGiven = true;
    } finally {
      state.closed = true;
    }
  }
  return { files: files(), state };
}

interface Served {
  url: string;
  /** Settles when streamZip has. */
  done: Promise<void>;
  cuts: string[];
  logs: string[];
  cutOff: AbortController;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server whose one response is `files` as a ZIP, streamed as the receipts endpoint does. */
async function serve(files: AsyncGenerator<ZipFile>): Promise<Served> {
  const cuts: string[] = [];
  const logs: string[] = [];
  const cutOff = new AbortController();
  let settle!: () => void;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const server = http.createServer((_req, res) => {
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    res.writeHead(200, { 'Content-Type': 'application/zip' });
    streamZip(res as unknown as Response, files, {
      clientGone: gone.signal,
      cutOff: cutOff.signal,
      logger: createLogger('info', lineSink(logs)),
      requestId: 'zip-test',
      metrics: { ...noMetrics, exportCut: (reason) => cuts.push(reason) },
    }).then(settle);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, done, cuts, logs, cutOff };
}

/** A download the test drives: paused from its first moment until `resume`. */
function pausedDownload(url: string) {
  const state = { received: 0, complete: false };
  const chunks: Buffer[] = [];
  let response: http.IncomingMessage | undefined;
  let closed!: () => void;
  const finished = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const req = http.get(url, { agent: false }, (res) => {
    response = res;
    res.pause();
    res.on('data', (chunk: Buffer) => {
      state.received += chunk.length;
      chunks.push(chunk);
    });
    res.on('end', () => {
      state.complete = res.complete;
    });
    res.on('close', closed);
    res.on('error', closed);
  });
  req.on('error', closed);
  return {
    state,
    finished,
    started: () => vi.waitFor(() => expect(response).toBeDefined()),
    resume: () => response?.resume(),
    body: () => Buffer.concat(chunks),
    leave: () => req.destroy(),
  };
}

/** Waits until `value()` has not changed for `quietMs` (the server has stalled). */
async function steady(value: () => number, quietMs = 400): Promise<number> {
  let last = value();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = value();
    if (now === last) return now;
    last = now;
  }
}

describe('streamZip', () => {
  it('writes every file, whole and in order, with its name and time, whatever its size', async () => {
    const sizes = [0, 1, ZIP_CHUNK_BYTES - 1, ZIP_CHUNK_BYTES, ZIP_CHUNK_BYTES + 1, 300_000];
    const { files, state } = storeOf(sizes);
    const served = await serve(files);
    const download = pausedDownload(served.url);
    await download.started();
    download.resume();
    await download.finished;
    await served.done;
    expect(download.state.complete).toBe(true);
    const entries = await unzip(download.body());
    expect(entries.map((e) => e.name)).toEqual(sizes.map((_, i) => `receipt ${i + 1}.pdf`));
    entries.forEach((entry, i) => {
      expect(entry.content.equals(fileOf(i + 1, sizes[i] as number).content)).toBe(true);
    });
    expect(state.closed).toBe(true);
    expect(served.cuts).toEqual([]);
    expect(served.logs.some((l) => l.includes('receipts zip finished'))).toBe(true);
  });

  it('a reader that pauses holds the ZIP back: files are read only as the download drains, and all arrive once it reads on', async () => {
    const size = 2 * MB;
    const count = 30;
    const { files, state } = storeOf(Array.from({ length: count }, () => size));
    const served = await serve(files);
    const download = pausedDownload(served.url);
    await download.started();

    const read = await steady(() => state.read);
    // What was read is what the kernel can hold for a reader that reads nothing, the file the
    // archive is taking and the one before it: never the whole period (60 MB here).
    const bound = Math.ceil(kernelAllowance() / size) + 2;
    expect(read).toBeLessThanOrEqual(bound);
    expect(bound).toBeLessThan(count / 2);
    expect(download.state.received).toBe(0);

    download.resume();
    await download.finished;
    await served.done;
    expect(state.read).toBe(count);
    const entries = await unzip(download.body());
    expect(entries).toHaveLength(count);
    expect(entries.every((e, i) => e.content.equals(fileOf(i + 1, size).content))).toBe(true);
  }, 60_000);

  it('a reader that leaves mid-way ends it: no more files are read, they are closed, and it settles', async () => {
    const { files, state } = storeOf(Array.from({ length: 30 }, () => 2 * MB));
    const served = await serve(files);
    const download = pausedDownload(served.url);
    await download.started();
    const read = await steady(() => state.read);
    download.leave();
    await served.done;
    expect(state.closed).toBe(true);
    expect(state.read).toBe(read);
    expect(served.cuts).toEqual(['client_gone']);
  }, 60_000);

  it('a reader that leaves once the last file was read still lets it settle (finalize never waits for a reader that is gone)', async () => {
    // One small file, then one larger than the kernel can hold: the last file is read, and
    // the ZIP cannot end while the reader pauses.
    const { files, state } = storeOf([1_000, 12 * MB]);
    const served = await serve(files);
    const download = pausedDownload(served.url);
    await download.started();
    await vi.waitFor(() => expect(state.read).toBe(2));
    await steady(() => download.state.received);
    download.leave();
    await served.done;
    expect(download.state.complete).toBe(false);
    expect(state.closed).toBe(true);
    expect(served.cuts).toEqual(['client_gone']);
  }, 60_000);

  it('a reader gone while a file is being read: that file is the last read, and it settles', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { files, state } = storeOf([1_000, 1_000, 1_000], { gate });
    const served = await serve(files);
    const download = pausedDownload(served.url);
    await download.started();
    await vi.waitFor(() => expect(state.read).toBe(1));
    download.leave();
    await new Promise((resolve) => setTimeout(resolve, 100));
    open();
    await served.done;
    expect(state.read).toBe(2);
    expect(state.closed).toBe(true);
    expect(served.cuts).toEqual(['client_gone']);
  });

  it("a shutdown's grace period ending breaks the download off, never ending it as a whole ZIP", async () => {
    const { files, state } = storeOf(Array.from({ length: 30 }, () => 2 * MB));
    const served = await serve(files);
    const download = pausedDownload(served.url);
    await download.started();
    await steady(() => state.read);
    served.cutOff.abort();
    await served.done;
    download.resume();
    await download.finished;
    expect(download.state.complete).toBe(false);
    expect(state.closed).toBe(true);
    expect(served.cuts).toEqual(['shutdown']);
  }, 60_000);

  it('a file that cannot be read breaks the download off, logged as a failure', async () => {
    const { files, state } = storeOf([1_000, 1_000, 1_000], { failAt: 2 });
    const served = await serve(files);
    const download = pausedDownload(served.url);
    await download.started();
    download.resume();
    await download.finished;
    await served.done;
    expect(download.state.complete).toBe(false);
    await expect(unzip(download.body())).rejects.toThrow();
    expect(state.closed).toBe(true);
    expect(served.cuts).toEqual(['failed']);
    expect(served.logs.some((l) => l.includes('receipts zip failed'))).toBe(true);
  });
});
