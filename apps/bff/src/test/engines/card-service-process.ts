// Starts the simulator in a process of its own behind a recording proxy
// (`card-service-process.main.ts`), for tests that judge the timing of what the BFF asks: in the
// test's own process the BFF's work would delay the simulator's clock too.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { createCardService } from '@card-console/card-service-sim';

const bffDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * A request as the card service's process saw it: when it came and when its answer was sent
 * (Unix ms, the machine's clock, which the test's process reads too).
 */
export interface RecordedRequest {
  at: number;
  status: number;
  retryAfterMs?: number;
  answeredAt: number;
}

export interface CardServiceProcess {
  url: string;
  /** Every request so far, in the order they came. */
  recorded(): Promise<RecordedRequest[]>;
  /** Transactions of `sub` dated at or after `from` (Unix ms). */
  rowsSince(sub: string, from: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startCardServiceProcess(
  options: Parameters<typeof createCardService>[0],
): Promise<CardServiceProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/test/engines/card-service-process.main.ts'],
    {
      cwd: bffDir,
      env: { PATH: process.env.PATH ?? '', CARD_SERVICE_OPTIONS: JSON.stringify(options) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no card service:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += String(chunk);
      const ready = /ready (http:\/\/\S+)/.exec(output);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the card service exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    recorded: async () => (await fetch(`${url}/__recorded`)).json() as Promise<RecordedRequest[]>,
    async rowsSince(sub, from) {
      const res = await fetch(`${url}/__rows?sub=${encodeURIComponent(sub)}&from=${from}`);
      return ((await res.json()) as { rows: number }).rows;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
