import type { Receipt } from '@card-console/shared/api/notes';
import { useQuery } from '@tanstack/react-query';
import { PicturePreview } from '../../../components/picture-preview';
import { receiptFileQueryOptions } from '../api/download-receipt';

/** A picture receipt as a thumbnail that opens larger. */
export function ReceiptPreview({ receipt: r }: { receipt: Receipt }) {
  const file = useQuery(receiptFileQueryOptions(r.transactionId, r.id));
  return <PicturePreview id={`receipt:${r.id}`} fileName={r.fileName} file={file} />;
}
