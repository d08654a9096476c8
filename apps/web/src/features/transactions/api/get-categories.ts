import type { CategoryCatalog } from '@card-console/shared/api/transaction-index';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The merchant categories a filter can name: fetched once, when first needed. */
export function categoriesQueryOptions() {
  return queryOptions({
    queryKey: ['transactions', 'categories'] as const,
    queryFn: ({ signal }) => api('index.categories', { signal }),
    staleTime: Infinity,
  });
}

export type CategoryChoice =
  | { kind: 'theme'; key: string; label: string; codes: string[] }
  | { kind: 'group'; key: string; label: string }
  | { kind: 'code'; key: string; label: string };

/**
 * What a typed word finds, best first: everyday themes ("software": its codes), groups by
 * name, then single codes by name or number. At most `max`.
 */
export function findCategories(catalog: CategoryCatalog, typed: string, max = 8): CategoryChoice[] {
  const term = typed.trim().toLowerCase();
  if (term === '') return [];
  const themes = new Map<string, string[]>();
  for (const c of catalog.categories) {
    for (const theme of c.themes ?? []) {
      if (theme.includes(term)) themes.set(theme, [...(themes.get(theme) ?? []), c.code]);
    }
  }
  const out: CategoryChoice[] = [
    ...[...themes].map(([theme, codes]) => ({
      kind: 'theme' as const,
      key: theme,
      label: theme,
      codes,
    })),
    ...catalog.groups
      .filter((g) => g.label.toLowerCase().includes(term))
      .map((g) => ({ kind: 'group' as const, key: g.key, label: g.label })),
    ...catalog.categories
      .filter((c) => c.code.startsWith(term) || c.name.toLowerCase().includes(term))
      .map((c) => ({ kind: 'code' as const, key: c.code, label: `${c.code} ${c.name}` })),
  ];
  return out.slice(0, max);
}
