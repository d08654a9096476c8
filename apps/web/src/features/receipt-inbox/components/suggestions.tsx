import type { InboxItem } from '../api/get-inbox';
import { daysApart, reasonWords } from '../inbox-words';
import { TransactionSummary, transactionLabel } from './transaction-summary';

type Suggestion = InboxItem['suggestions'][number];

interface Props {
  item: InboxItem;
  /** The transaction being attached, if any: every choice waits meanwhile. */
  busy: boolean;
  onPick: (s: Suggestion) => void;
}

/**
 * The transactions that may be this receipt's, best first, each with why in words: "Confirm"
 * on the best, "This one" on the others. Nothing is attached until the person says so.
 */
export function Suggestions({ item, busy, onPick }: Props) {
  return (
    <ol className="rinbox-suggestions" aria-label={`Transactions that may be ${item.fileName}`}>
      {item.suggestions.map((s, n) => {
        const apart = daysApart(item.read?.date, s.at);
        const verb = n === 0 ? 'Confirm' : 'This one';
        return (
          <li key={`${s.subAccountId}/${s.transactionId}`} className="rinbox-suggestion">
            <div className="rinbox-suggestion-about">
              {n === 0 ? <span className="rinbox-best">Best match</span> : null}
              <TransactionSummary t={s} />
              <ul className="rinbox-reasons" aria-label="Why it fits">
                {s.reasons.map((reason) => (
                  <li key={reason}>{reasonWords(reason, apart)}</li>
                ))}
              </ul>
            </div>
            <button
              type="button"
              className={n === 0 ? 'primary' : undefined}
              aria-label={`${verb}: ${transactionLabel(s)}`}
              aria-disabled={busy || undefined}
              onClick={() => {
                if (!busy) onPick(s);
              }}
            >
              {verb}
            </button>
          </li>
        );
      })}
    </ol>
  );
}
