import type { AuditListItem } from '@card-console/shared/api/audit';
import { useNavigate } from '@tanstack/react-router';
import { ErrorState } from '../../../components/error-state';
import { Loading } from '../../../components/loading';
import { PagedListFooter } from '../../../components/paged-list-footer';
import { SearchNotice } from '../../../components/search-notice';
import { useDocumentTitle } from '../../../components/use-document-title';
import type { PagedList } from '../../../lib/use-url-pages';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { type AuditListFilter, isFiltered } from '../audit-filter';
import type { AuditSearch } from '../audit-search';
import { AUDIT_SEARCH_WORDS } from '../audit-search-words';
import { AuditFilters } from './audit-filters';
import { AuditTable } from './audit-table';
import { ExportAuditButton } from './export-audit-button';

interface AuditScreenProps {
  search: AuditSearch;
  /** What the list (and an export) is filtered by. */
  filter: AuditListFilter;
  cards: CardChoices;
  /** The records shown: the list's first `pages` pages; undefined until the first arrives. */
  list: PagedList<AuditListItem> | undefined;
  /** Why the first page did not load: shown in the list's place, the filters kept. */
  error?: unknown;
  onRetry?: () => void;
  /** The records shown are the previous filters' while the new ones load. */
  busy: boolean;
}

export function AuditScreen({
  search,
  filter,
  cards,
  list,
  error,
  onRetry,
  busy,
}: AuditScreenProps) {
  useDocumentTitle('Audit');
  const navigate = useNavigate();
  const records = list?.rows ?? [];
  const empty = list !== undefined && records.length === 0;
  return (
    <section aria-labelledby="audit-title" className="audit-screen">
      <div className="screen-header">
        <h1 id="audit-title">Audit</h1>
        <ExportAuditButton
          filter={filter}
          search={search}
          blocked={
            empty && !busy
              ? isFiltered(search)
                ? 'Nothing to export: no records match these filters.'
                : 'Nothing to export: nothing has been recorded yet.'
              : undefined
          }
        />
      </div>
      <p className="muted audit-intro">
        Who revealed, changed or tried what, and when. Newest first.
      </p>
      <SearchNotice words={AUDIT_SEARCH_WORDS} />
      <AuditFilters
        search={search}
        cards={cards}
        // A new filter starts the list afresh, from its first page.
        onChange={(next) => void navigate({ to: '/audit', search: { ...next, pages: undefined } })}
      />
      {!list ? (
        error !== undefined && !busy ? (
          <div className="list-error">
            <ErrorState error={error} onRetry={onRetry} />
          </div>
        ) : (
          <Loading />
        )
      ) : empty ? (
        <p className="empty" aria-busy={busy || undefined}>
          {isFiltered(search)
            ? 'No records match these filters.'
            : 'Nothing has been recorded yet.'}
        </p>
      ) : (
        <div className="audit-records">
          <AuditTable records={records} cards={cards.cards} busy={busy || list.loadingMore} />
          <PagedListFooter
            list={list}
            noun={['record', 'records']}
            busy={busy}
            capHint="Narrow the filters, or export them as CSV for everything."
          />
        </div>
      )}
    </section>
  );
}
