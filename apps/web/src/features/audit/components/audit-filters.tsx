import { auditActions, auditAttempts, auditOutcomes } from '@card-console/shared/api/audit-enums';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Field } from '../../../components/field';
import { FiltersFold } from '../../../components/filters-fold';
import { PeriodField, usePeriodChoice } from '../../../components/period-field';
import { statusLabel } from '../../../components/status-badge';
import { oneOf } from '../../../lib/search-params';
import { CardFilterField } from '../../cards';
import type { CardChoices } from '../../cards/api/use-card-choices';
import { isFiltered } from '../audit-filter';
import { ACTION_LABELS, deniedLabel } from '../audit-labels';
import { type AuditSearch, EMAIL_PATTERN } from '../audit-search';

/** How long typing pauses before the email applies by itself. */
const TYPING_PAUSE_MS = 500;

/** A refusal of one kind in the action choice: `access.denied:card.reveal`. */
const DENIED = 'access.denied:';

function actionChoice(search: AuditSearch): string {
  if (search.action === 'access.denied' && search.attempted) return `${DENIED}${search.attempted}`;
  return search.action ?? '';
}

function fromActionChoice(value: string): Pick<AuditSearch, 'action' | 'attempted'> {
  if (value.startsWith(DENIED)) {
    const attempted = oneOf(auditAttempts, value.slice(DENIED.length));
    return { action: attempted ? 'access.denied' : undefined, attempted };
  }
  return { action: oneOf(auditActions, value), attempted: undefined };
}

interface AuditFiltersProps {
  search: AuditSearch;
  cards: CardChoices;
  onChange: (next: AuditSearch) => void;
}

/**
 * Every change becomes a new URL (a history entry) and starts the list afresh. Choices apply
 * at once; the email applies as soon as typing pauses on a whole address (or an empty field),
 * with Enter, or along with the next choice. On a phone the email, the period and the action
 * stay in view ("who revealed cards this week" is two choices) and the outcome and card fold
 * under "Filters", which says how many are set.
 */
export function AuditFilters({ search, cards, onChange }: AuditFiltersProps) {
  const [actor, setActor] = useState(search.actor ?? '');
  const [actorError, setActorError] = useState<string | undefined>();
  // Back, Forward or a link change the URL under the field: show what the list is filtered by.
  const [urlActor, setUrlActor] = useState(search.actor);
  if (urlActor !== search.actor) {
    setUrlActor(search.actor);
    setActor(search.actor ?? '');
    setActorError(undefined);
  }

  /** The typed email as the filter holds it; false when it is not one whole address. */
  const typedActor = (): string | undefined | false => {
    const value = actor.trim().toLowerCase();
    if (!value) return undefined;
    return value.length <= 254 && EMAIL_PATTERN.test(value) ? value : false;
  };
  const set = (patch: Partial<AuditSearch>) => {
    const typed = typedActor();
    onChange({ ...search, actor: typed === false ? search.actor : typed, ...patch });
  };
  const applyActor = (event: FormEvent) => {
    event.preventDefault();
    const typed = typedActor();
    if (typed === false) {
      setActorError('Enter one whole email address, like name@company.com.');
      return;
    }
    setActorError(undefined);
    set({ actor: typed });
  };
  // The email applies as the choices do: once typing pauses on a whole address, or on none.
  const latest = useRef({ search, onChange });
  latest.current = { search, onChange };
  const wanted = typedActor();
  useEffect(() => {
    if (wanted === false || wanted === search.actor) return;
    const timer = setTimeout(() => {
      const now = latest.current;
      now.onChange({ ...now.search, actor: wanted });
    }, TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [wanted, search.actor]);
  // Half an address is said so when the person leaves the field, not while they type.
  const checkActor = () =>
    setActorError(
      wanted === false ? 'Enter one whole email address, like name@company.com.' : undefined,
    );
  const period = usePeriodChoice(search);
  const setCount = [search.outcome, search.cardId].filter(Boolean).length;
  const clear = () => {
    setActor('');
    setActorError(undefined);
    onChange({});
  };

  return (
    <form
      className="filters audit-filters"
      aria-label="Audit filters"
      noValidate
      onSubmit={applyActor}
    >
      <div className="filter-with-button">
        <Field label="Who (email)" error={actorError}>
          {(control) => (
            <input
              {...control}
              type="email"
              autoComplete="off"
              spellCheck={false}
              maxLength={254}
              value={actor}
              onChange={(e) => {
                setActor(e.target.value);
                if (actorError) setActorError(undefined);
              }}
              onBlur={checkActor}
              // Enter applies at once (no Apply button to submit the form with).
              onKeyDown={(e) => {
                if (e.key === 'Enter') applyActor(e);
              }}
            />
          )}
        </Field>
      </div>
      <PeriodField range={search} choice={period} onChange={set} />
      <Field label="Action">
        {(control) => (
          <select
            {...control}
            value={actionChoice(search)}
            onChange={(e) => set(fromActionChoice(e.target.value))}
          >
            <option value="">All actions</option>
            <optgroup label="Done or tried">
              {auditActions
                .filter((a) => a !== 'access.denied')
                .map((a) => (
                  <option key={a} value={a}>
                    {ACTION_LABELS[a]}
                  </option>
                ))}
            </optgroup>
            <optgroup label="Refused">
              <option value="access.denied">Any refusal</option>
              {auditAttempts.map((a) => (
                <option key={a} value={`${DENIED}${a}`}>
                  {deniedLabel(a)}
                </option>
              ))}
            </optgroup>
          </select>
        )}
      </Field>
      <FiltersFold setCount={setCount}>
        <Field label="Outcome">
          {(control) => (
            <select
              {...control}
              value={search.outcome ?? ''}
              onChange={(e) => set({ outcome: oneOf(auditOutcomes, e.target.value) })}
            >
              <option value="">All outcomes</option>
              {auditOutcomes.map((o) => (
                <option key={o} value={o}>
                  {statusLabel(o)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <CardFilterField
          cardId={search.cardId}
          cards={cards}
          onChange={(cardId) => set({ cardId })}
        />
      </FiltersFold>
      {isFiltered(search) ? (
        <button type="button" onClick={clear}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
