// The production entry point (`node apps/bff/dist/index.js`, the production command of
// docs/operations.md): the server against the configured card service. It imports neither the
// simulator nor the demo identity provider; demo mode starts from demo/main.ts (`pnpm start`).
import { configOrExit, runServer } from './server';

const config = configOrExit(process.env);
if (config.mode === 'demo') {
  console.error(
    'DEMO_MODE=1 asks for demo mode, which this production entry point never starts: run `pnpm start` (apps/bff/dist/demo.js), or set CARD_API_BASE_URL and CARD_API_KEY.',
  );
  process.exit(1);
}
runServer(config);
