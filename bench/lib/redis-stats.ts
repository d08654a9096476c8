// What a benchmark's redis-server has been doing, read with Debian's redis-cli (it comes with
// redis-server): commands processed so far, keys held.
import { execFileSync } from 'node:child_process';

function cli(port: number, ...args: string[]): string {
  return execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    encoding: 'utf8',
  });
}

export function redisCommandsProcessed(port: number): number {
  const match = /total_commands_processed:(\d+)/.exec(cli(port, 'INFO', 'stats'));
  if (!match) throw new Error('redis INFO stats has no total_commands_processed');
  return Number(match[1]);
}

export function redisKeyCount(port: number): number {
  return Number(cli(port, 'DBSIZE').trim());
}
