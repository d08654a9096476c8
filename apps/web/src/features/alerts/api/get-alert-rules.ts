import type { AlertRuleList, AlertRuleView } from '@card-console/shared/api/alerts';
import { ALERTS_API } from '@card-console/shared/api/alerts';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchAlertRules(signal?: AbortSignal) {
  return apiJson<AlertRuleList>(ALERTS_API.rules, { signal });
}

/** The caller's own rules and the team's, oldest first. */
export function alertRulesQueryOptions() {
  return queryOptions({
    queryKey: ['alerts', 'rules'] as const,
    queryFn: ({ signal }) => fetchAlertRules(signal),
    select: (list): AlertRuleView[] => list.items,
  });
}
