import { createCardService } from '@card-console/card-service-sim';
import pino from 'pino';
import { createUpstreamClient } from '../src/upstream/client';
import { request } from 'undici';

const sim = createCardService({ apiKey: 'k', subAccounts: 1, transactions: 20000, rateLimit: false });
const { url } = await sim.listen(0);
const sub = sim.data.subAccounts()[0]!.id;
const client = createUpstreamClient({ baseUrl: url, apiKey: 'k', logger: pino({ level: 'warn' }) });
for (let round = 0; round < 2; round++) {
  let t0 = performance.now(); let cursor: string | undefined; let pages = 0;
  do { const p = await client.listTransactions({ requestId: 'x' }, { subAccountId: sub, cursor }); cursor = p.metadata.nextCursor; pages++; } while (cursor);
  console.log('client pages', pages, (performance.now() - t0).toFixed(0), 'ms');
  t0 = performance.now(); cursor = undefined; pages = 0;
  do {
    const r = await request(`${url}/transaction?subAccountId=${sub}${cursor ? `&cursor=${cursor}` : ''}`, { headers: { 'x-api-key': 'k' } });
    const j = (await r.body.json()) as { metadata: { nextCursor?: string } }; cursor = j.metadata.nextCursor; pages++;
  } while (cursor);
  console.log('raw pages', pages, (performance.now() - t0).toFixed(0), 'ms');
}
await client.close(); await sim.close();
