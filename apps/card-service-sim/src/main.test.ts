import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('..', import.meta.url));

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: appDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, output: () => out, exited };
}

describe('standalone simulator (src/main.ts)', () => {
  it('logs its URL without the key, serves with that key, and exits 0 on SIGTERM', async () => {
    const key = 'standalone-secret-key';
    const sim = run({ PORT: '0', CARD_API_KEY: key, SIM_TRANSACTIONS: '100' });
    const deadline = Date.now() + 15_000;
    while (!/listening on (http:\/\/\S+)/.test(sim.output()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = /listening on (http:\/\/\S+)/.exec(sim.output())?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/sub-account`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    // The test route is not there unless asked for.
    const hook = await fetch(`${url}/__testing/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(hook.status).toBe(404);
    sim.child.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
    expect(sim.output()).not.toContain(key);
  });

  it('with SIM_TEST_HOOKS=1, serves POST /__testing/transactions with its key', async () => {
    const key = 'standalone-hooks-key';
    const sim = run({ PORT: '0', CARD_API_KEY: key, SIM_TRANSACTIONS: '100', SIM_TEST_HOOKS: '1' });
    try {
      const deadline = Date.now() + 15_000;
      while (!/test hooks on/.test(sim.output()) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const url = /listening on (http:\/\/\S+)/.exec(sim.output())?.[1];
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const subs = (await (await fetch(`${url}/sub-account`, { headers })).json()) as {
        items: { id: string }[];
      };
      const subAccountId = subs.items[0]?.id;
      const res = await fetch(`${url}/__testing/transactions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ subAccountId, amountCents: 50_000, status: 'settled' }),
      });
      expect(res.status).toBe(201);
      const added = (await res.json()) as { id: string };
      const list = (await (
        await fetch(`${url}/transaction?subAccountId=${subAccountId}`, { headers })
      ).json()) as { items: { id: string }[] };
      expect(list.items[0]?.id).toBe(added.id);
    } finally {
      sim.child.kill('SIGTERM');
      await sim.exited;
    }
  });

  it('refuses a bad variable with a message naming it and exit code 1', async () => {
    const sim = run({ SIM_TRANSACTIONS: 'lots' });
    expect(await sim.exited).toBe(1);
    expect(sim.output()).toContain('SIM_TRANSACTIONS');
  });
});
