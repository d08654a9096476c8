import type { AlertRuleInput, AlertRuleUpdate } from '@card-console/shared/api/alerts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { alertRulesQueryOptions } from './get-alert-rules';

export function createAlertRule(body: AlertRuleInput) {
  return api('alerts.createRule', { body });
}

export function updateAlertRule(id: string, body: AlertRuleUpdate) {
  return api('alerts.updateRule', { params: { id }, body });
}

/** A new rule (no id) or a change to one (its id and the version it was made on). */
export type SaveAlertRule =
  | { id?: undefined; input: AlertRuleInput }
  | { id: string; input: AlertRuleUpdate };

/** Creates or changes a rule; the list is asked for again either way (a 409 moved it on). */
export function useSaveAlertRule() {
  const queryClient = useQueryClient();
  const { queryKey } = alertRulesQueryOptions();
  return useMutation({
    mutationFn: (save: SaveAlertRule) =>
      save.id === undefined ? createAlertRule(save.input) : updateAlertRule(save.id, save.input),
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
