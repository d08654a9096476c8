import { Link } from '@tanstack/react-router';
import type { InboxItem } from '../api/get-inbox';
import { TransactionSummary } from './transaction-summary';

type Attached = NonNullable<InboxItem['attached']>;

/**
 * Where an attached receipt went, with a link to that transaction: its description, date and
 * amount as they were when the receipt was attached (the item carries them; nothing is fetched).
 */
export function AttachedTo({ item, attached }: { item: InboxItem; attached: Attached }) {
  return (
    <div className="rinbox-attached">
      <p className="rinbox-attached-words">
        Attached{attached.automatic ? ' automatically' : ''} to{' '}
        <TransactionSummary
          t={{
            description: attached.description,
            at: attached.transactionAt,
            amountCents: attached.amountCents,
          }}
        />
      </p>
      <Link
        to="/transactions/$transactionId"
        params={{ transactionId: attached.transactionId }}
        search={{}}
      >
        Open the transaction <span className="visually-hidden">of {item.fileName}</span>
      </Link>
    </div>
  );
}
