// The receipt reader: reads receipt files in child processes (reader-child.ts), each file
// within a time and a memory budget, so OCR and PDF parsing never run on a request's path and
// a file that is slow, huge or crashes its reader costs that file only.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import type { ReceiptFields } from './receipt-fields';

export type ReadOutcome =
  | { ok: true; fields: ReceiptFields }
  | { ok: false; problem: 'unreadable' | 'too_slow' | 'too_large' };

export interface ReceiptReader {
  /** The file's fields; rejects only once the reader is closed. */
  read(bytes: Buffer, mediaType: string): Promise<ReadOutcome>;
  /** Ends the children; reads not answered yet reject. */
  close(): Promise<void>;
}

export interface ReceiptReaderOptions {
  /** Files read at once, one child process each. */
  processes?: number;
  /** Per file, counted once its child is up; past it the child is killed (`too_slow`). */
  timeBudgetMs?: number;
  /** A child's resident memory while reading; past it the child is killed (`too_large`). */
  memoryBudgetBytes?: number;
  /** How long an idle child (and its OCR model, some 100 MB) is kept for the next file. */
  idleMs?: number;
  logger: Logger;
}

/** What the parent sends a child. */
export interface ReadJob {
  id: number;
  mediaType: string;
  bytes: Uint8Array;
}
/** What a child sends back: that it is up, then one answer per job. */
export type ChildAnswer =
  | { ready: true }
  | { id: number; ok: true; fields: ReceiptFields }
  | { id: number; ok: false; problem: 'unreadable'; why: 'type' | 'empty' | 'damaged' };

/** A child not up by then is broken (a missing module, a machine out of memory). */
const START_LIMIT_MS = 30_000;
/** How often a reading child's memory is looked at (Linux only: /proc). */
const MEMORY_CHECK_MS = 250;

interface Pending {
  job: ReadJob;
  settle(outcome: ReadOutcome): void;
  fail(error: Error): void;
}

interface Child {
  process: ChildProcess;
  ready: boolean;
  pending?: Pending;
  startedAt: number;
  timers: NodeJS.Timeout[];
  idle?: NodeJS.Timeout;
  /** Killed or exited: takes no job, and counts against `processes` until its exit. */
  ending: boolean;
}

/**
 * The child's script: the TypeScript source beside this file under tsx and Vitest, the bundle's
 * `receipt-reader` entry (bundle.ts) beside the chunk holding this code in dist/.
 */
function childScript(): { path: string; execArgv: string[] } {
  if (import.meta.url.endsWith('.ts')) {
    // tsx resolved from here, not from whatever directory the process runs in.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    return {
      path: fileURLToPath(new URL('./reader-child.ts', import.meta.url)),
      execArgv: ['--import', tsx],
    };
  }
  return { path: fileURLToPath(new URL('./receipt-reader.js', import.meta.url)), execArgv: [] };
}

/**
 * A child's resident memory in bytes, from /proc (undefined when it is gone). Read at once: a
 * page the kernel writes on demand, microseconds, and no answer can slip in meanwhile.
 */
function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

export function createReceiptReader({
  processes = 1,
  timeBudgetMs = 60_000,
  memoryBudgetBytes = 768 * 1024 * 1024,
  idleMs = 120_000,
  logger,
}: ReceiptReaderOptions): ReceiptReader {
  const script = childScript();
  const measuresMemory = process.platform === 'linux';
  const children: Child[] = [];
  const queue: Pending[] = [];
  let nextId = 1;
  let closed = false;

  const clearTimers = (child: Child) => {
    for (const timer of child.timers) clearTimeout(timer);
    child.timers = [];
  };

  /** Ends a child on purpose; its exit then makes room for a fresh one. */
  const kill = (child: Child) => {
    child.ending = true;
    clearTimers(child);
    clearTimeout(child.idle);
    child.process.kill('SIGKILL');
  };

  /** The job's answer is `problem` and its child is killed: the next file gets a fresh one. */
  const overrun = (child: Child, problem: 'too_slow' | 'too_large') => {
    const pending = child.pending;
    if (!pending) return;
    child.pending = undefined;
    logger.warn(
      { problem, mediaType: pending.job.mediaType, byteSize: pending.job.bytes.byteLength },
      'receipt reader: over its budget, child killed',
    );
    pending.settle({ ok: false, problem });
    kill(child);
  };

  /** The budgets of the job a child reads now, counted from its being up. */
  const watch = (child: Child) => {
    const pending = child.pending;
    if (!pending || !child.ready) return;
    child.timers.push(setTimeout(() => overrun(child, 'too_slow'), timeBudgetMs));
    if (!measuresMemory) return;
    const check = () => {
      if (child.pending !== pending) return;
      const bytes = residentBytes(child.process.pid);
      if (bytes !== undefined && bytes > memoryBudgetBytes) overrun(child, 'too_large');
    };
    child.timers.push(setInterval(check, MEMORY_CHECK_MS));
  };

  const assign = (child: Child, pending: Pending) => {
    child.pending = pending;
    clearTimeout(child.idle);
    // A reading child keeps the BFF's event loop alive; an idle one does not (see `finished`).
    child.process.ref();
    child.process.channel?.ref();
    // A closed channel ends in 'exit', which answers the job.
    child.process.send(pending.job, () => undefined);
    watch(child);
  };

  const pump = () => {
    while (!closed && queue.length > 0) {
      const child =
        children.find((c) => !c.pending && !c.ending) ??
        (children.length < processes ? start() : undefined);
      if (!child) return;
      assign(child, queue.shift() as Pending);
    }
  };

  /** A job answered: the child waits for the next, unless its memory stayed over budget. */
  const finished = (child: Child) => {
    const bytes = measuresMemory ? residentBytes(child.process.pid) : undefined;
    // WebAssembly memory never shrinks: a child that grew past the budget would fail the next
    // file at its first check. A fresh one reads it instead.
    if (bytes !== undefined && bytes > memoryBudgetBytes) kill(child);
    else {
      child.process.unref();
      child.process.channel?.unref();
      child.idle = setTimeout(() => kill(child), idleMs);
      child.idle.unref();
    }
    pump();
  };

  const onAnswer = (child: Child, message: ChildAnswer) => {
    if ('ready' in message) {
      child.ready = true;
      clearTimers(child);
      logger.debug({ ms: Date.now() - child.startedAt }, 'receipt reader: child up');
      watch(child);
      return;
    }
    const pending = child.pending;
    if (!pending || pending.job.id !== message.id) return; // already answered by a budget
    child.pending = undefined;
    clearTimers(child);
    if (message.ok) {
      const found = Object.keys(message.fields);
      logger.debug({ mediaType: pending.job.mediaType, found }, 'receipt reader: read');
      pending.settle({ ok: true, fields: message.fields });
    } else {
      logger.info(
        { mediaType: pending.job.mediaType, why: message.why },
        'receipt reader: unreadable',
      );
      pending.settle({ ok: false, problem: 'unreadable' });
    }
    finished(child);
  };

  /** A child ended (killed by a budget, crashed, never started): its job, if any, is lost. */
  const onGone = (child: Child, detail: Record<string, unknown>) => {
    if (!children.includes(child)) return;
    child.ending = true;
    clearTimers(child);
    clearTimeout(child.idle);
    children.splice(children.indexOf(child), 1);
    const pending = child.pending;
    child.pending = undefined;
    if (pending && !closed) {
      logger.warn(
        { ...detail, mediaType: pending.job.mediaType, byteSize: pending.job.bytes.byteLength },
        'receipt reader: child died while reading',
      );
      pending.settle({ ok: false, problem: 'unreadable' });
    }
    pump();
  };

  const start = (): Child => {
    const child: Child = {
      process: fork(script.path, [], {
        execArgv: script.execArgv,
        serialization: 'advanced',
        // Its output is not the BFF's log: tesseract's chatter is dropped, stderr read aside.
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      }),
      ready: false,
      startedAt: Date.now(),
      timers: [],
      ending: false,
    };
    children.push(child);
    const { process: proc } = child;
    // The last of its errors, for the log line when it dies (never a receipt's text: the
    // child prints none).
    let stderr = '';
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-1000);
    });
    proc.on('message', (message: ChildAnswer) => onAnswer(child, message));
    proc.on('exit', (code, signal) => onGone(child, { code, signal, stderr: stderr.trim() }));
    proc.on('error', (error) => {
      logger.error({ err: error }, 'receipt reader: child process failed');
      if (proc.pid === undefined) onGone(child, { spawnError: error.message });
    });
    child.timers.push(
      setTimeout(() => {
        logger.error({ ms: START_LIMIT_MS }, 'receipt reader: child did not start');
        kill(child);
      }, START_LIMIT_MS),
    );
    return child;
  };

  return {
    read(bytes, mediaType) {
      if (closed) return Promise.reject(new Error('receipt reader closed'));
      return new Promise<ReadOutcome>((resolve, reject) => {
        queue.push({
          job: { id: nextId++, mediaType, bytes },
          settle: resolve,
          fail: reject,
        });
        pump();
      });
    },
    async close() {
      closed = true;
      const stopped = new Error('receipt reader closed');
      for (const pending of queue.splice(0)) pending.fail(stopped);
      await Promise.all(
        [...children].map(
          (child) =>
            new Promise<void>((resolve) => {
              child.pending?.fail(stopped);
              child.pending = undefined;
              child.process.once('exit', () => resolve());
              if (child.process.exitCode !== null || child.process.signalCode !== null) resolve();
              else kill(child);
            }),
        ),
      );
    },
  };
}
