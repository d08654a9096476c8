import { type RouteRule, routeTable } from './route-table';

interface CompiledRule {
  rule: RouteRule;
  segments: (string | null)[]; // null: a `:param` segment
}

function compile(rule: RouteRule): CompiledRule {
  const segments = rule.path
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith(':') ? null : s));
  return { rule, segments };
}

/**
 * The table row for a method and path, matched strictly (case-sensitive, no trailing slash):
 * stricter than the router, so anything that passes reaches the handler its row names.
 * HEAD is treated as GET, as Express does.
 */
export function createRouteMatcher(table: readonly RouteRule[] = routeTable) {
  const compiled = table.map(compile);
  return (method: string, path: string): RouteRule | undefined => {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const parts = path.split('/').slice(1);
    for (const { rule, segments } of compiled) {
      if (rule.method !== wanted || segments.length !== parts.length) continue;
      const fits = segments.every((s, i) => {
        const part = parts[i] ?? '';
        return s === null ? part.length > 0 : s === part;
      });
      if (fits) return rule;
    }
    return undefined;
  };
}
