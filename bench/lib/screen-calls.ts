import type { CardService } from '@card-console/card-service-sim';
import { benchPassword } from './bff';
import { launchChromium } from './browser';

export interface ScreenCalls {
  screen: string;
  visible: string;
  goal: number;
  calls: number;
  detail: string;
}

/** Opens each screen cold in Chromium and counts the upstream calls its first load makes. */
export async function countScreenCalls(options: {
  bffUrl: string;
  sim: CardService;
  email?: string;
}): Promise<ScreenCalls[]> {
  const { bffUrl, sim } = options;
  const subAccountId = sim.data.subAccounts()[0]?.id as string;
  const cardId = sim.data.cards()[0]?.id as string;
  const transactionId = sim.data.transactions(subAccountId)[0]?.id as string;
  const screens = [
    { screen: 'Sub accounts', path: '/sub-accounts', visible: 'sub-account list', goal: 1 },
    { screen: 'Cards', path: '/cards', visible: 'card list', goal: 1 },
    { screen: 'Card detail', path: `/cards/${cardId}`, visible: 'one card', goal: 1 },
    {
      screen: 'Transactions',
      path: `/transactions?subAccountId=${subAccountId}`,
      visible:
        'transaction list, sub-account choices (card choices load when the card filter is opened)',
      goal: 2,
    },
    {
      screen: 'Transactions, filtered by one card',
      path: `/transactions?subAccountId=${subAccountId}&cardId=${cardId}`,
      visible: 'transaction list, sub-account choices, the selected card',
      goal: 3,
    },
    {
      screen: 'Transaction detail',
      path: `/transactions/${transactionId}?subAccountId=${subAccountId}`,
      visible: 'one transaction',
      goal: 1,
    },
  ];

  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${bffUrl}/sign-in`);
    await page.getByLabel('Email').fill(options.email ?? 'bench0@example.test');
    await page.getByLabel('Password').fill(benchPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
    await page.waitForLoadState('networkidle');

    const results: ScreenCalls[] = [];
    for (const s of screens) {
      const fresh = await context.newPage();
      sim.stats.reset();
      await fresh.goto(`${bffUrl}${s.path}`, { waitUntil: 'networkidle' });
      const snapshot = sim.stats.snapshot();
      const calls = Object.values(snapshot).reduce((a, b) => a + b, 0);
      const detail = Object.entries(snapshot)
        .filter(([, n]) => n > 0)
        .map(([route, n]) => `${route} ×${n}`)
        .join(', ');
      results.push({
        screen: s.screen,
        visible: s.visible,
        goal: s.goal,
        calls,
        detail: detail || 'none',
      });
      await fresh.close();
    }
    return results;
  } finally {
    await browser.close();
  }
}
