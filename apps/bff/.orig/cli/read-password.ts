// Reads a password without echoing it: raw-mode keystrokes on a TTY, or the first line of
// stdin when piped (`printf '%s\n' "$PW" | pnpm users add ...`).
import { stderr, stdin } from 'node:process';

function readPiped(): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    stdin.setEncoding('utf8');
    stdin.on('data', (chunk) => {
      data += chunk;
    });
    stdin.on('end', () => resolve(data.split(/\r?\n/)[0] ?? ''));
    stdin.on('error', reject);
  });
}

function readHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    stderr.write(prompt);
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readPassword(): Promise<string> {
  if (!stdin.isTTY) return readPiped();
  const first = await readHidden('Password (at least 12 characters): ');
  const second = await readHidden('Repeat the password: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}
