import { useQuery } from '@tanstack/react-query';
import { attentionQueryOptions } from '../api/get-attention';
import {
  closePresets,
  countedDaysText,
  countedWindow,
  datesAndOrder,
  isPreset,
  presetNoun,
  presetSearch,
  presetShown,
} from '../close-presets';
import type { TransactionsSearch } from '../transactions-search';

interface Props {
  search: TransactionsSearch;
  /** The list's days; none (every day): the counts are the month close's, as the navigation's. */
  days: { from?: string | undefined; to?: string | undefined };
  onChange: (next: TransactionsSearch) => void;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * What the month close still needs, every sub account, of the money that moved: to review, no
 * accounting category, no receipt and no memo where the close policy asks for them (what it
 * asks said in each preset's title); apart, the declined (attempted). Over the list's days, or
 * the month close's (the navigation's count) when the list has none. A preset shows exactly those
 * (over those days, the order kept, every other filter cleared); pressed again, it clears its
 * filter. Until the first sync ends, each count says it is one so far.
 */
export function ClosePresetsBar({ search, days, onChange }: Props) {
  // Worked out on each render, as the navigation's: a tab left open overnight moves on a day.
  const window = countedWindow(days, Date.now());
  const attention = useQuery(attentionQueryOptions(window.query));
  const when = countedDaysText(window.days, window.today);
  const syncing = attention.data !== undefined && attention.data.freshness.updatedAt === undefined;
  const shown = closePresets.filter((preset) => presetShown(preset, attention.data));
  return (
    <fieldset className="close-presets">
      {/* A legend is drawn on the border, outside the row: the row's own label shows it. */}
      <legend className="visually-hidden">Needs attention</legend>
      <span className="close-presets-label" aria-hidden="true">
        Needs attention
      </span>
      {shown.map((preset) => {
        const n = attention.data?.[preset.key].count;
        const pressed = isPreset(search, preset, attention.data);
        const noun = presetNoun(preset, attention.data);
        const many = `${n === 1 ? '' : 's'}`;
        return (
          <button
            key={preset.key}
            type="button"
            className="preset"
            aria-pressed={pressed}
            title={
              n === undefined
                ? `Show the transactions ${noun} ${when}, every sub account`
                : syncing
                  ? `Still syncing — ${count(n)} transaction${many} ${noun} so far, ${when}, every sub account`
                  : `${count(n)} transaction${many} ${noun} ${when}, every sub account`
            }
            onClick={() =>
              onChange(
                pressed
                  ? datesAndOrder(search)
                  : presetSearch(search, preset, attention.data, window.today),
              )
            }
          >
            {preset.label}
            {n === undefined ? null : (
              <>
                {' '}
                <span className={syncing ? 'preset-count syncing' : 'preset-count'}>
                  {syncing ? `${count(n)} so far` : count(n)}
                </span>
              </>
            )}
          </button>
        );
      })}
    </fieldset>
  );
}
