import { useQuery } from '@tanstack/react-query';
import { PicturePreview } from '../../../components/picture-preview';
import type { InboxItem } from '../api/get-inbox';
import { inboxFileQueryOptions } from '../api/get-inbox-file';
import { isPreviewable, typeName } from '../inbox-file';
import { useInView } from './use-in-view';

/** A picture as a thumbnail that opens larger; a PDF (or a HEIC picture) as its kind. */
export function InboxThumb({ item }: { item: InboxItem }) {
  return isPreviewable(item.mediaType) ? <Picture item={item} /> : <FileKind item={item} />;
}

/** Its bytes are asked for once the row comes near the window. */
function Picture({ item }: { item: InboxItem }) {
  const [ref, seen] = useInView<HTMLSpanElement>();
  const file = useQuery({ ...inboxFileQueryOptions(item.id), enabled: seen });
  return (
    <PicturePreview
      id={`inbox:${item.id}`}
      fileName={item.fileName}
      file={file}
      placeholderRef={ref}
      lazy
    />
  );
}

function FileKind({ item }: { item: InboxItem }) {
  return (
    <span className="receipt-thumb receipt-kind rinbox-kind" aria-hidden="true">
      {item.mediaType === 'application/pdf' ? (
        <svg
          aria-hidden="true"
          viewBox="0 0 24 24"
          width="22"
          height="22"
          fill="none"
          stroke="currentColor"
        >
          <path d="M6 2.5h8l4.5 4.5v14.5H6z" strokeWidth="1.5" strokeLinejoin="round" />
          <path d="M14 2.5V7h4.5" strokeWidth="1.5" strokeLinejoin="round" />
        </svg>
      ) : null}
      <span>{typeName(item.mediaType)}</span>
    </span>
  );
}
