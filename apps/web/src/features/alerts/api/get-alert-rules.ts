import type { AlertRuleView } from '@card-console/shared/api/alerts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchAlertRules(signal?: AbortSignal) {
  return api('alerts.rules', { signal });
}

/** The caller's own rules and the team's, oldest first. */
export function alertRulesQueryOptions() {
  return queryOptions({
    queryKey: ['alerts', 'rules'] as const,
    queryFn: ({ signal }) => fetchAlertRules(signal),
    select: (list): AlertRuleView[] => list.items,
  });
}
