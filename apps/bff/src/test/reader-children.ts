// The receipt reader's children of this process (Linux: /proc), zombies left out: what a test
// counts to know a reader started, replaced or ended its children, and that none outlives a file.
import { readdirSync, readFileSync } from 'node:fs';

export function readerChildren(): number[] {
  const ours = (pid: string) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return parent === process.pid && command.includes('reader-child');
    } catch {
      return false;
    }
  };
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && ours(entry))
    .map(Number);
}
