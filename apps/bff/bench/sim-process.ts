import { type ChildProcess, fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export interface SimProcess {
  url: string;
  subAccountId: string;
  pid: number;
  /** Upstream GET /transaction requests served so far (pages walked). */
  pages(): Promise<number>;
  setLatency(ms: number): Promise<void>;
  /** Adds `perSub` new card transactions, dated now, to each sub account; how many in all. */
  arrive(perSub: number): Promise<number>;
  stop(): Promise<void>;
}

function ask<T>(child: ChildProcess, message: object): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (reply) => resolve(reply as T));
    child.send(message);
  });
}

/** Starts the simulator in a child process (tsx loader) and waits until it listens. */
export function startSimProcess(
  transactions: number,
  apiKey: string,
  /** Months of history (the simulator's default when absent). */
  months?: number,
): Promise<SimProcess> {
  const child = fork(join(here, 'sim-child.ts'), [], {
    cwd: join(here, '..'),
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      BENCH_TRANSACTIONS: String(transactions),
      BENCH_API_KEY: apiKey,
      ...(months === undefined ? {} : { BENCH_MONTHS: String(months) }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`simulator exited with ${code} before it was ready`)),
    );
    child.once('message', (m) => {
      const ready = m as { url: string; subAccountId: string };
      resolve({
        url: ready.url,
        subAccountId: ready.subAccountId,
        pid: child.pid as number,
        pages: async () => (await ask<{ pages: number }>(child, { cmd: 'pages' })).pages,
        setLatency: async (ms) => void (await ask(child, { cmd: 'latency', ms })),
        arrive: async (perSub) =>
          (await ask<{ added: number }>(child, { cmd: 'arrive', perSub })).added,
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.disconnect();
            setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
          }),
      });
    });
  });
}
