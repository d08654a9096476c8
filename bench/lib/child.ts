import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = join(benchDir, '..');
const tsxBin = join(benchDir, 'node_modules', '.bin', 'tsx');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface Child {
  process: ChildProcess;
  pid: number;
  /** First line the child printed that matched the ready pattern. */
  readyLine: string;
  output: () => string;
  stop(): Promise<void>;
}

const running = new Set<Child>();
/** Benchmark processes (`runTsToEnd`): told to stop, so they stop their own children. */
const benchmarks = new Set<ChildProcess>();
function killAll() {
  for (const proc of benchmarks) proc.kill('SIGTERM');
  for (const child of running) child.process.kill('SIGKILL');
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

/**
 * Runs a TypeScript entry in its own process to the end and returns what it printed on
 * stdout (stderr passes through, its end kept for the error): a benchmark measured in a
 * fresh process.
 */
export function runTsToEnd(
  entry: string,
  options: { args?: string[]; env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<string> {
  const proc = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', tsxLoader, entry, ...(options.args ?? [])],
    { cwd: repoRoot, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  benchmarks.add(proc);
  let out = '';
  let err = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    err = (err + chunk.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    // 'close', not 'exit': only then has everything it printed been read.
    proc.once('close', (code) => {
      benchmarks.delete(proc);
      if (code === 0) resolve(out);
      else reject(new Error(`${entry} exited with ${code}:\n${err}`));
    });
  });
}

/** Starts a TypeScript entry in its own process and waits for a line matching `ready`. */
export function startTs(
  entry: string,
  options: {
    env?: Record<string, string>;
    ready: RegExp;
    cwd?: string;
    timeoutMs?: number;
    /** Extra node flags (e.g. --cpu-prof); for a .ts entry node then runs tsx's loader itself. */
    nodeArgs?: string[];
  },
): Promise<Child> {
  // A built .js entry runs on plain node; TypeScript through tsx (its loader when node flags
  // are given, so the flags reach the process that runs the code).
  const [command, args] = entry.endsWith('.js')
    ? [process.execPath, [...(options.nodeArgs ?? []), entry]]
    : options.nodeArgs
      ? [process.execPath, [...options.nodeArgs, '--import', tsxLoader, entry]]
      : [tsxBin, [entry]];
  const proc = spawn(command, args, {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${entry} did not become ready in time:\n${out.slice(-2000)}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.length > 1_000_000) out = out.slice(-100_000);
      const line = out.split('\n').find((l) => options.ready.test(l));
      if (line && timer) {
        clearTimeout(timer);
        proc.stdout?.off('data', onData);
        proc.stdout?.resume();
        const child: Child = {
          process: proc,
          // Only tsx's own binary runs the code in a child process; node runs it itself.
          pid: command === tsxBin ? serverPid(proc.pid as number) : (proc.pid as number),
          readyLine: line,
          output: () => out,
          stop: () =>
            new Promise((done) => {
              running.delete(child);
              // Ended already (an exit code, or killed by a signal, which leaves the code null).
              if (proc.exitCode !== null || proc.signalCode !== null) return done();
              proc.once('exit', () => done());
              proc.kill('SIGTERM');
              setTimeout(() => proc.kill('SIGKILL'), 5_000).unref();
            }),
        };
        running.add(child);
        resolve(child);
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it was ready:\n${out.slice(-2000)}`));
    });
  });
}

/**
 * tsx runs the entry in a child node process: measure that one, not the wrapper.
 * Falls back to the wrapper's own pid when it has no child.
 */
function serverPid(wrapperPid: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === wrapperPid) return Number(entry);
    } catch {
      // the process ended while we looked
    }
  }
  return wrapperPid;
}

/** CPU time (user + system) the process has used, in microseconds. */
export { cpuMicros } from '../../apps/bff/bench/process-cpu';

/** Peak resident set size of the process so far, in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}
