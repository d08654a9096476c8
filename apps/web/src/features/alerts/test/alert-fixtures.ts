import type { AlertRuleView, InboxItem, InboxPage } from '@card-console/shared/api/alerts';
import { HttpResponse } from 'msw';
import { serve, server } from '../../../test/server';

const at = '2026-03-15T15:00:00Z';

/** A rule as the API returns it. */
export function alertRule(overrides: Partial<AlertRuleView> = {}): AlertRuleView {
  return {
    id: 'rule_1',
    kind: 'declined',
    name: 'Declines',
    channels: { inbox: true, email: false, webhookTargetId: null },
    digest: false,
    enabled: true,
    team: false,
    cardOwner: false,
    version: 1,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

const common = {
  ruleId: 'rule_1',
  ruleName: 'Declines',
  raisedAt: at,
  readAt: null,
  subAccountId: 'sa_ops',
  subAccountName: 'Operations',
};
const tx = {
  transactionId: 'tx_1',
  transactionAt: at,
  amountCents: -1240,
  status: 'DECLINED',
  description: 'BLUE TAXI 123',
};

/** One alert of each kind, newest first. */
export const inboxOfEachKind: InboxItem[] = [
  {
    kind: 'declined',
    ...common,
    id: 'al_1',
    ...tx,
    merchant: 'Blue Taxi',
    declineReason: 'Card paused',
    cardId: 'card_1',
    last4: '4242',
  },
  {
    kind: 'amount_above',
    ...common,
    id: 'al_2',
    ...tx,
    transactionId: 'tx_2',
    amountCents: -81200,
    status: 'SETTLED',
    merchant: 'Oak Suites',
    thresholdCents: 50000,
    readAt: at,
  },
  {
    kind: 'utilisation_above',
    ...common,
    id: 'al_3',
    cardId: 'card_1',
    last4: '4242',
    sharePercent: 80,
    limitCents: 100000,
    spentCents: 85000,
    windowStart: '2026-03-01',
    windowEnd: '2026-03-31',
    timeZone: 'UTC',
  },
  {
    kind: 'new_category',
    ...common,
    id: 'al_4',
    ...tx,
    transactionId: 'tx_4',
    cardName: 'Travel',
    last4: '4242',
    categoryCode: 'Taxicabs',
  },
  {
    kind: 'balance_below',
    ...common,
    id: 'al_5',
    thresholdCents: 100000,
    balanceCents: 90000,
    day: '2026-03-15',
  },
];

export function serveUnread(unread: number) {
  server.use(serve('alerts.unreadCount', () => HttpResponse.json({ unread })));
}

/** The inbox in pages: the first without a cursor, each next by its page number. */
export function serveInbox(pages: InboxItem[][]) {
  server.use(
    serve('alerts.inbox', ({ request }) => {
      const cursor = new URL(request.url).searchParams.get('cursor');
      const index = cursor ? Number(cursor.replace('page', '')) : 0;
      const page: InboxPage = {
        items: pages[index] ?? [],
        ...(index + 1 < pages.length ? { next: `page${index + 1}` } : {}),
      };
      return HttpResponse.json(page);
    }),
  );
}
