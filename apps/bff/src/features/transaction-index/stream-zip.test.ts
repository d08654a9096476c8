// streamZip at the reader's pace and however the download ends. Over real HTTP: a reader that
// pauses holds the ZIP back (files are read from the store only as the download drains), and a
// reader that leaves, a shutdown or a file that cannot be read ends it. Against a response the
// test stalls and releases at will: the exact moment it waits (a file half taken, the output
// not drained, the archive finishing after the last file), and that it settles from each, so
// the export's slot is given back.
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
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

/**
 * Files as a store would give them, counting those read and noting when they were closed;
 * `afterLast` runs when the ZIP asks for a file after the last one.
 */
function storeOf(
  sizes: number[],
  options: { failAt?: number; gate?: Promise<void>; afterLast?: () => void } = {},
) {
  const state = { read: 0, closed: false };
  async function* files(): AsyncGenerator<ZipFile> {
    try {
      for (const [i, bytes] of sizes.entries()) {
        if (i === 1 && options.gate) await options.gate;
        if (i === options.failAt) throw new Error('the store went away');
        state.read++;
        yield fileOf(i + 1, bytes);
      }
      options.afterLast?.();
    } finally {
      state.closed = true;
    }
  }
  return { files: files(), state };
}

/** What streamZip is given besides the files, with what it counted and logged. */
function contextOf() {
  const cuts: string[] = [];
  const logs: string[] = [];
  const gone = new AbortController();
  const cutOff = new AbortController();
  return {
    cuts,
    gone,
    cutOff,
    lines: () => logs.map((line) => JSON.parse(line) as Record<string, unknown>),
    ctx: {
      clientGone: gone.signal,
      cutOff: cutOff.signal,
      logger: createLogger('info', lineSink(logs)),
      requestId: 'zip-test',
      metrics: { ...noMetrics, exportCut: (reason: string) => cuts.push(reason) },
    },
    /** Nothing left listening on either signal once streamZip has settled. */
    expectNoListeners() {
      expect(getEventListeners(gone.signal, 'abort')).toHaveLength(0);
      expect(getEventListeners(cutOff.signal, 'abort')).toHaveLength(0);
    },
  };
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server whose one response is `files` as a ZIP, streamed as the receipts endpoint does. */
async function serve(files: AsyncGenerator<ZipFile>) {
  const context = contextOf();
  let settle!: () => void;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const server = http.createServer((_req, res) => {
    res.on('close', () => context.gone.abort());
    res.writeHead(200, { 'Content-Type': 'application/zip' });
    streamZip(res as unknown as Response, files, context.ctx).then(settle);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { ...context, url, done };
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

/**
 * A response the test holds: while stalled, what is written waits unacknowledged (so the
 * response soon needs draining); `flow` acknowledges it all and what comes after.
 */
function stallable() {
  const written: Buffer[] = [];
  const waiting: (() => void)[] = [];
  let flowing = false;
  const res = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk);
      if (flowing) done();
      else waiting.push(done);
    },
  });
  return {
    res: res as unknown as Response,
    writable: res,
    flow() {
      flowing = true;
      for (const done of waiting.splice(0)) done();
    },
    stall() {
      flowing = false;
    },
    body: () => Buffer.concat(written),
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

describe('streamZip over HTTP', () => {
  it('writes every file, whole, stored and in order, with its name, whatever its size', async () => {
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
    // Stored, not compressed: the bytes are in the ZIP as they are.
    expect(download.body().includes(fileOf(6, 300_000).content)).toBe(true);
    expect(state.closed).toBe(true);
    expect(served.cuts).toEqual([]);
    expect(served.lines()).toContainEqual(
      expect.objectContaining({ msg: 'receipts zip finished', files: 6, requestId: 'zip-test' }),
    );
    served.expectNoListeners();
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
    expect(served.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'receipts zip stopped before its end',
        reason: 'client_gone',
        files: read - 1,
        requestId: 'zip-test',
      }),
    );
    served.expectNoListeners();
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
    served.expectNoListeners();
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
    expect(served.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'receipts zip failed',
        files: 2,
        err: expect.objectContaining({ message: 'the store went away' }),
      }),
    );
    served.expectNoListeners();
  });
});

describe('streamZip against a response it must wait for', () => {
  it('reads the next file only once the response has drained, then goes on as it drains', async () => {
    const { files, state } = storeOf(Array.from({ length: 100 }, () => 1_000));
    const out = stallable();
    const context = contextOf();
    const done = streamZip(out.res, files, context.ctx);
    // The first file is out and waiting: nothing more is read, not even a small next file.
    await steady(() => state.read, 200);
    expect(state.read).toBe(1);
    expect(out.writable.writableNeedDrain).toBe(true);
    out.flow();
    await done;
    expect(state.read).toBe(100);
    expect(await unzip(out.body())).toHaveLength(100);
    context.expectNoListeners();
  });

  it('a reader gone while a file is half taken: it settles, that file the last read', async () => {
    const { files, state } = storeOf([2 * MB, 1_000]);
    const out = stallable();
    const context = contextOf();
    const done = streamZip(out.res, files, context.ctx);
    await steady(() => out.body().length, 200);
    expect(out.body().length).toBeLessThan(MB);
    context.gone.abort();
    await done;
    expect(state.read).toBe(1);
    expect(out.writable.destroyed).toBe(true);
    expect(context.cuts).toEqual(['client_gone']);
  });

  it('a shutdown while the response is not drained: it settles, the response broken off', async () => {
    const { files, state } = storeOf([1_000, 1_000]);
    const out = stallable();
    const context = contextOf();
    const done = streamZip(out.res, files, context.ctx);
    await steady(() => state.read, 200);
    context.cutOff.abort();
    await done;
    expect(state.read).toBe(1);
    expect(out.writable.destroyed).toBe(true);
    expect(context.cuts).toEqual(['shutdown']);
  });

  it('a response that breaks or closes by itself (not told by the reader) ends it too, as a failure', async () => {
    for (const cause of [new Error('write EPIPE'), undefined]) {
      const { files, state } = storeOf([1_000, 1_000]);
      const out = stallable();
      const context = contextOf();
      const done = streamZip(out.res, files, context.ctx);
      await steady(() => state.read, 200);
      out.writable.destroy(cause);
      await done;
      expect(state.read).toBe(1);
      expect(context.cuts).toEqual(['failed']);
      context.expectNoListeners();
    }
  });

  it('a reader gone after the last file, while the archive finishes: it settles (the archive is aborted, not waited for)', async () => {
    const out = stallable();
    // The last file is out; the archive's end then waits on the reader.
    const { files } = storeOf([1_000, 1_000], { afterLast: () => out.stall() });
    out.flow();
    const context = contextOf();
    const done = streamZip(out.res, files, context.ctx);
    await steady(() => out.body().length, 200);
    expect((await unzip(out.body()).catch(() => [])).length).toBe(0);
    context.gone.abort();
    await done;
    expect(out.writable.destroyed).toBe(true);
    expect(context.cuts).toEqual(['client_gone']);
    context.expectNoListeners();
  });

  it('a shutdown after the last file, while the archive finishes: it settles, broken off', async () => {
    const out = stallable();
    const { files } = storeOf([1_000], { afterLast: () => out.stall() });
    out.flow();
    const context = contextOf();
    const done = streamZip(out.res, files, context.ctx);
    await steady(() => out.body().length, 200);
    context.cutOff.abort();
    await done;
    expect(out.writable.destroyed).toBe(true);
    expect(context.cuts).toEqual(['shutdown']);
  });

  it('a reader already gone, or a shutdown already under way, when it starts: no file is read', async () => {
    for (const [signal, reason] of [
      ['gone', 'client_gone'],
      ['cutOff', 'shutdown'],
    ] as const) {
      const { files, state } = storeOf([1_000]);
      const out = stallable();
      out.flow();
      const context = contextOf();
      context[signal].abort();
      await streamZip(out.res, files, context.ctx);
      expect(state.read).toBe(0);
      expect(out.writable.destroyed).toBe(true);
      expect(context.cuts).toEqual([reason]);
      context.expectNoListeners();
    }
  });
});
