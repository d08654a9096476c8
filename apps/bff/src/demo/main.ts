// The demo entry point (`pnpm start` runs it as dist/demo.js, `pnpm dev` as TypeScript): in demo
// mode it starts the card-service simulator in this process and demo mode's own OpenID Provider
// on loopback, then the same server as the production entry point (index.ts). Outside demo mode
// (a set CARD_API_BASE_URL overrides DEMO_MODE) it starts that server alone, as index.ts does,
// and never loads the simulator or the provider.
import type { Config } from '../env';
import { configOrExit, type DemoParts, runServer } from '../server';

async function startDemoParts(config: Config): Promise<DemoParts> {
  if (config.mode !== 'demo') return {};
  const { startDemoUpstream } = await import('./demo-upstream');
  const upstream = await startDemoUpstream({
    transactions: config.demoTransactions,
    live: config.demoLive,
  });
  const { seedDemoChart } = await import('./demo-chart');
  const { seedDemoOwners } = await import('./demo-owners');
  const seed: DemoParts['seed'] = async ({ notes, cardOwners }) => {
    await seedDemoChart(notes, new Date());
    await seedDemoOwners(cardOwners, upstream.cards(), new Date());
  };
  if (config.sso !== 'demo') return { upstream, seed };
  // Started before the server: the demo accounts are linked to its people.
  const { startDemoIdentityProvider } = await import('./demo-identity-provider');
  const identityProvider = await startDemoIdentityProvider({
    redirectUris: config.allowedOrigins.map((origin) => `${origin}/api/sso/callback`),
    postLogoutRedirectUris: config.allowedOrigins.map((origin) => `${origin}/sign-in`),
  });
  return { upstream, identityProvider, seed };
}

const config = configOrExit(process.env);
startDemoParts(config).then(
  (parts) => runServer(config, parts),
  (error: unknown) => {
    console.error('Card Console failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
