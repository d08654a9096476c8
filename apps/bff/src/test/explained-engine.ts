// What a store's statements do in the engine: each one `watch` picks is run again under EXPLAIN
// ANALYZE before it runs, and its plan kept, so a test can say which indexes a query used and
// how many rows its scans read.
import type { SqlEngine } from '../platform/sql/sql-engine';

interface PlanNode {
  'Node Type'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** `engine`, with the plan of each statement `watch` picks kept in `plans` (in order). */
export function explainedEngine(
  engine: SqlEngine,
  watch: (text: string) => boolean,
): { engine: SqlEngine; plans: unknown[] } {
  const plans: unknown[] = [];
  const watched: SqlEngine = {
    ...engine,
    async query<R extends object>(text: string, params?: readonly unknown[]) {
      if (watch(text)) {
        const [plan] = await engine.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
          params,
        );
        plans.push(plan?.['QUERY PLAN']);
      }
      return engine.query<R>(text, params);
    },
  };
  return { engine: watched, plans };
}

/** Every node of an EXPLAIN (ANALYZE, FORMAT JSON) plan. */
export function planNodes(plan: unknown): PlanNode[] {
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(((Array.isArray(plan) ? plan[0] : plan) as { Plan: PlanNode }).Plan);
  return nodes;
}
