import { AppError } from './app-error';
import { type RouteRule, routeTable } from './route-table';

export interface RouteMatch {
  rule: RouteRule;
  /** The row as text, `PATCH /api/cards/:id`: built once, for the request's log line. */
  key: string;
  /** Path parameters by name, percent-decoded. */
  params: Record<string, string>;
}

interface CompiledRule {
  rule: RouteRule;
  key: string;
  /** Literal segments as text; a `:param` segment as `{ param: name }`. */
  segments: (string | { param: string })[];
}

function compile(rule: RouteRule): CompiledRule {
  const segments = rule.path
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : s));
  return { rule, key: `${rule.method} ${rule.path}`, segments };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AppError(400, 'bad_request', 'The request could not be understood.');
  }
}

/**
 * The table row for a method and path, matched strictly (case-sensitive, no trailing slash,
 * literal segments before parameters), with its path parameters. This is the API's only
 * router: a request reaches the handler of the row it matched and no other.
 * HEAD is treated as GET, as Express does.
 */
export function createRouteMatcher(table: readonly RouteRule[] = routeTable) {
  const byMethod = new Map<string, CompiledRule[]>();
  for (const rule of table) {
    const list = byMethod.get(rule.method) ?? [];
    list.push(compile(rule));
    byMethod.set(rule.method, list);
  }
  // A literal segment wins over a parameter in the same place (`/export.csv` before `/:id`).
  for (const list of byMethod.values()) {
    list.sort((a, b) => literalRank(b) - literalRank(a));
  }

  return (method: string, path: string): RouteMatch | undefined => {
    const candidates = byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (!candidates) return undefined;
    const parts = path.split('/');
    next: for (const { rule, key, segments } of candidates) {
      if (segments.length !== parts.length - 1) continue;
      for (let i = 0; i < segments.length; i++) {
        const want = segments[i] as string | { param: string };
        const part = parts[i + 1] as string;
        if (typeof want === 'string' ? want !== part : part.length === 0) continue next;
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < segments.length; i++) {
        const want = segments[i] as string | { param: string };
        if (typeof want !== 'string') params[want.param] = decodeSegment(parts[i + 1] as string);
      }
      return { rule, key, params };
    }
    return undefined;
  };
}

/** How many leading segments are literal: more literal, more specific. */
function literalRank({ segments }: CompiledRule): number {
  let rank = 0;
  for (const s of segments) {
    if (typeof s !== 'string') break;
    rank++;
  }
  return rank;
}
