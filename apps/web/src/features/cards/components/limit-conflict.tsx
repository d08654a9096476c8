import type { Card, CardPatchBody } from '@card-console/shared/api/cards';
import { useEffect, useRef } from 'react';
import { limitText } from './card-limits';

interface LimitConflictProps {
  /** The card as the person saw it when they made their change. */
  seen: Card;
  /** The card as it is now, after someone else's change. */
  current: Card;
  /** The person's change (only what they changed). */
  mine: CardPatchBody;
  /** Why the last attempt failed, when it was not another conflict. */
  failure: string | undefined;
  saving: boolean;
  onReapply: () => void;
  onEditAgain: () => void;
  onCancel: () => void;
}

interface Row {
  label: string;
  seen: string;
  now: string;
  mine: string | undefined;
}

function rowsOf(seen: Card, current: Card, mine: CardPatchBody): Row[] {
  const limit = mine.transactionSizeLimit;
  const seenLimits = seen.transactionSizeLimit;
  const nowLimits = current.transactionSizeLimit;
  return [
    { label: 'Name', seen: seen.name, now: current.name, mine: mine.name },
    {
      label: 'Minimum',
      seen: limitText(seenLimits.minimumCents),
      now: limitText(nowLimits.minimumCents),
      mine: limit?.minimumCents === undefined ? undefined : limitText(limit.minimumCents),
    },
    {
      label: 'Maximum',
      seen: limitText(seenLimits.maximumCents),
      now: limitText(nowLimits.maximumCents),
      mine: limit?.maximumCents === undefined ? undefined : limitText(limit.maximumCents),
    },
  ];
}

/**
 * Someone else saved a change to the card while this person was editing: theirs was not saved.
 * Shows what they saw, what the card holds now and what they wanted, and lets them apply their
 * change on top of the current values (a new PATCH stating those values) or edit again.
 */
export function LimitConflict(props: LimitConflictProps) {
  const { seen, current, mine, failure, saving } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus follows the news, also when a re-apply meets yet another change.
  useEffect(() => {
    if (current) heading.current?.focus();
  }, [current]);

  return (
    <section className="panel conflict" aria-labelledby="conflict-title">
      <h2 id="conflict-title" ref={heading} tabIndex={-1}>
        Someone else changed this card
      </h2>
      <p role="alert">
        While you were editing, someone else saved a change to this card, so your change was not
        saved. Compare the values now on the card with yours, then apply your change to the current
        values or edit it again.
      </p>
      <table className="conflict-table">
        <caption className="visually-hidden">The card's values and your change</caption>
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">Now on the card</th>
            <th scope="col">Your change</th>
          </tr>
        </thead>
        <tbody>
          {rowsOf(seen, current, mine).map((row) => (
            <tr key={row.label}>
              <th scope="row">{row.label}</th>
              <td>
                {row.now}
                {row.seen === row.now ? null : (
                  <>
                    {' '}
                    <span className="tag">changed</span>
                    <small className="muted was">you saw {row.seen}</small>
                  </>
                )}
              </td>
              <td>{row.mine ?? <span className="muted">not changed</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {failure ? (
        <p className="form-error" role="alert">
          The change was refused: {failure}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" onClick={props.onEditAgain}>
          Edit again
        </button>
        <button type="button" className="primary" disabled={saving} onClick={props.onReapply}>
          {saving ? 'Saving…' : 'Apply my change to the current values'}
        </button>
      </div>
    </section>
  );
}
