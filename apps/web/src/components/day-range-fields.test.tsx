import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { type DayRange, DayRangeFields } from './day-range-fields';

/** The fields over a range held as a screen holds it (in its URL), with every change applied. */
function Harness(props: { initial: DayRange; onChange: (range: DayRange) => void }) {
  const [range, setRange] = useState(props.initial);
  return (
    <>
      <DayRangeFields
        {...range}
        onChange={(next) => {
          props.onChange(next);
          setRange(next);
        }}
      />
      {/* As Back, Forward or "Clear filters" would: a new range from outside. */}
      <button type="button" onClick={() => setRange({ from: '2026-01-01', to: '2026-01-31' })}>
        Elsewhere
      </button>
    </>
  );
}

function setup(initial: DayRange = { from: '2026-03-01', to: '2026-03-08' }) {
  const onChange = vi.fn();
  render(<Harness initial={initial} onChange={onChange} />);
  const from = screen.getByLabelText('From');
  const to = screen.getByLabelText('To');
  return { onChange, from, to };
}

describe('day range fields', () => {
  it('applies a range in order, either end at a time, and an emptied day as open', () => {
    const { onChange, from, to } = setup();
    fireEvent.change(from, { target: { value: '2026-03-02' } });
    expect(onChange).toHaveBeenLastCalledWith({ from: '2026-03-02', to: '2026-03-08' });
    fireEvent.change(to, { target: { value: '2026-03-02' } });
    expect(onChange).toHaveBeenLastCalledWith({ from: '2026-03-02', to: '2026-03-02' });
    fireEvent.change(from, { target: { value: '' } });
    expect(onChange).toHaveBeenLastCalledWith({ from: undefined, to: '2026-03-02' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('keeps a From after the To as typed, names From, and applies nothing until the range is whole', () => {
    const { onChange, from, to } = setup();
    fireEvent.change(from, { target: { value: '2026-03-09' } });
    expect(onChange).not.toHaveBeenCalled();
    expect(from).toHaveValue('2026-03-09');
    expect(to).toHaveValue('2026-03-08');
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(
      'From (Mar 9, 2026) is after To (Mar 8, 2026). Choose a From on or before Mar 8, 2026, or a later To; the list waits until then.',
    );
    expect(from).toHaveAttribute('aria-invalid', 'true');
    expect(from).toHaveAccessibleDescription(alert.textContent ?? '');
    expect(to).not.toHaveAttribute('aria-invalid');

    // Moving the To past it makes the range whole: both apply, nothing typed was lost.
    fireEvent.change(to, { target: { value: '2026-03-12' } });
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenLastCalledWith({ from: '2026-03-09', to: '2026-03-12' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(from).not.toHaveAttribute('aria-invalid');
  });

  it('names the To when it is the To that was set before the From', () => {
    const { onChange, from, to } = setup();
    fireEvent.change(to, { target: { value: '2026-02-20' } });
    expect(onChange).not.toHaveBeenCalled();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'To (Feb 20, 2026) is before From (Mar 1, 2026). Choose a To on or after Mar 1, 2026',
    );
    expect(to).toHaveAttribute('aria-invalid', 'true');
    expect(from).not.toHaveAttribute('aria-invalid');
    // Fixed from the other end: an earlier From.
    fireEvent.change(from, { target: { value: '2026-02-01' } });
    expect(onChange).toHaveBeenLastCalledWith({ from: '2026-02-01', to: '2026-02-20' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('emptying the other day also makes the range whole', () => {
    const { onChange, from, to } = setup();
    fireEvent.change(from, { target: { value: '2026-03-09' } });
    fireEvent.change(to, { target: { value: '' } });
    expect(onChange).toHaveBeenLastCalledWith({ from: '2026-03-09', to: undefined });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a new range from outside replaces what was typed, and its message', () => {
    const { onChange, from, to } = setup();
    fireEvent.change(from, { target: { value: '2026-03-09' } });
    expect(screen.getByRole('alert')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Elsewhere' }));
    expect(from).toHaveValue('2026-01-01');
    expect(to).toHaveValue('2026-01-31');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
  });

  it('a year still being typed is neither applied nor called out of order until the field is left', () => {
    const { onChange, from } = setup({ to: '2026-03-08' });
    fireEvent.focus(from);
    // A date field reports each year it passes while the year is typed: 0002, 0020, 0202, 2026.
    for (const year of ['0002', '0020', '0202']) {
      fireEvent.change(from, { target: { value: `${year}-03-01` } });
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    }
    expect(onChange).not.toHaveBeenCalled();
    fireEvent.blur(from);
    expect(screen.getByRole('alert')).toHaveTextContent('From: finish the year (four digits).');
    fireEvent.focus(from);
    fireEvent.change(from, { target: { value: '2026-03-01' } });
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenLastCalledWith({ from: '2026-03-01', to: '2026-03-08' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('the pickers offer only days in order', () => {
    const { from, to } = setup();
    expect(from).toHaveAttribute('max', '2026-03-08');
    expect(to).toHaveAttribute('min', '2026-03-01');
  });
});
