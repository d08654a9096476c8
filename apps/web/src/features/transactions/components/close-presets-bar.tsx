import type { IndexQuery } from '@card-console/shared/api/transaction-index';
import { useQuery } from '@tanstack/react-query';
import { attentionQueryOptions } from '../api/get-attention';
import {
  closePresets,
  datesAndOrder,
  daysText,
  isPreset,
  presetNoun,
  presetSearch,
} from '../close-presets';
import type { TransactionsSearch } from '../transactions-search';

interface Props {
  search: TransactionsSearch;
  /** The list's query: its days (as instants) are the counts' period. */
  query: IndexQuery;
  days: { from?: string | undefined; to?: string | undefined };
  onChange: (next: TransactionsSearch) => void;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * What the month close still needs over the list's days, every sub account: unreviewed, no
 * accounting category, spend with no receipt, declined, each with its count. A preset shows exactly those (the days
 * and the order kept, every other filter cleared); pressed again, it clears its filter.
 */
export function ClosePresetsBar({ search, query, days, onChange }: Props) {
  const attention = useQuery(attentionQueryOptions({ from: query.from, to: query.to }));
  const when = daysText(days);
  return (
    <fieldset className="close-presets">
      {/* A legend is drawn on the border, outside the row: the row's own label shows it. */}
      <legend className="visually-hidden">Needs attention</legend>
      <span className="close-presets-label" aria-hidden="true">
        Needs attention
      </span>
      {closePresets.map((preset) => {
        const n = attention.data?.[preset.key].count;
        const pressed = isPreset(search, preset, attention.data);
        const noun = presetNoun(preset, attention.data);
        return (
          <button
            key={preset.key}
            type="button"
            className="preset"
            aria-pressed={pressed}
            title={
              n === undefined
                ? `Show the transactions ${noun} ${when}, every sub account`
                : `${count(n)} transaction${n === 1 ? '' : 's'} ${noun} ${when}, every sub account`
            }
            onClick={() =>
              onChange(
                pressed ? datesAndOrder(search) : presetSearch(search, preset, attention.data),
              )
            }
          >
            {preset.label}
            {n === undefined ? null : (
              <>
                {' '}
                <span className="preset-count">{count(n)}</span>
              </>
            )}
          </button>
        );
      })}
    </fieldset>
  );
}
