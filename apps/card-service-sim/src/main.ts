import { parseEnv } from './env';
import { createCardService } from './index';

const parsed = parseEnv(process.env);
if (!parsed.ok) {
  console.error(parsed.message);
  process.exit(1);
}
const { env } = parsed;
const service = createCardService({
  apiKey: env.CARD_API_KEY,
  seed: env.SIM_SEED,
  transactions: env.SIM_TRANSACTIONS,
  testRoutes: env.SIM_TEST_HOOKS,
});
const { url } = await service.listen(env.PORT, '127.0.0.1');
// The key is never logged; only where to reach the service.
console.log(
  `card-service-sim listening on ${url} (seed ${env.SIM_SEED}, ${env.SIM_TRANSACTIONS} transactions)`,
);
if (env.SIM_TEST_HOOKS) {
  console.log('card-service-sim: test hooks on (POST /__testing/transactions), for tests only');
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
