import { instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { useState } from 'react';
import { PERIOD_LABELS, type Period, periodDays, periods } from '../lib/periods';
import { type DayRange, DayRangeFields } from './day-range-fields';
import { Field } from './field';

/** A screen's chosen days: a preset (kept as its name, so a link means the same period later) or days. */
export interface PeriodRange extends DayRange {
  period?: Period | undefined;
}

/** Whether the From and To fields show: custom days chosen, or asked for before any is typed. */
export function usePeriodChoice(range: PeriodRange) {
  const [customWanted, setCustomWanted] = useState(false);
  const custom = range.period === undefined && Boolean(range.from || range.to || customWanted);
  return { custom, setCustomWanted };
}

/** The days a preset means today in the person's zone, or the custom days. */
export function daysOf(range: PeriodRange, now = Date.now()): DayRange {
  if (range.period) return periodDays(range.period, instantToIsoDay(now, localTimeZone()));
  return { from: range.from, to: range.to };
}

/**
 * "Period": Any time, the presets (Today … Year to date, Last 7/30/90 days), or Custom days with
 * a From and To. Custom days start as the days the preset showed, to be edited.
 */
export function PeriodField({
  range,
  choice,
  onChange,
  className,
}: {
  range: PeriodRange;
  choice: ReturnType<typeof usePeriodChoice>;
  onChange: (patch: PeriodRange) => void;
  className?: string;
}) {
  const { custom, setCustomWanted } = choice;
  return (
    <>
      <Field label="Period" className={className ? `period-field ${className}` : 'period-field'}>
        {(control) => (
          <select
            {...control}
            value={range.period ?? (custom ? 'custom' : '')}
            onChange={(e) => {
              const value = e.target.value;
              setCustomWanted(value === 'custom');
              if (value === 'custom') return onChange({ period: undefined, ...daysOf(range) });
              onChange({
                period: (value || undefined) as Period | undefined,
                from: undefined,
                to: undefined,
              });
            }}
          >
            <option value="">Any time</option>
            {periods.map((p) => (
              <option key={p} value={p}>
                {PERIOD_LABELS[p]}
              </option>
            ))}
            <option value="custom">Custom days</option>
          </select>
        )}
      </Field>
      {custom ? (
        <DayRangeFields from={range.from} to={range.to} onChange={(days) => onChange(days)} />
      ) : null}
    </>
  );
}
