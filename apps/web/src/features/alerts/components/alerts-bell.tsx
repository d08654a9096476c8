import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { UNREAD_POLL_MS, unreadCountQueryOptions } from '../api/get-unread-count';
import { badgeText } from '../inbox-summary';
import { InboxPanel } from './inbox-panel';

/**
 * The top bar's bell: the unread count as a badge, asked for every 30 s and when the window
 * comes back into focus (as a background request), and the inbox when pressed. Loaded after
 * the first screen; until the count is in, the bell shows no number.
 */
export default function AlertsBell(): React.ReactNode {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const { data: unread = 0 } = useQuery({
    ...unreadCountQueryOptions(),
    refetchInterval: UNREAD_POLL_MS,
    refetchOnWindowFocus: true,
  });
  const badge = badgeText(unread);
  // The name holds the badge's own text ("99+"), as what is seen is what is said; the title has
  // the whole number.
  const name = badge ? `Alerts, ${badge} unread` : 'Alerts';
  const title = unread > 0 ? `Alerts, ${unread.toLocaleString('en-US')} unread` : 'Alerts';
  return (
    <div className="alerts-bell">
      <button
        ref={button}
        type="button"
        className="bell-button"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={name}
        title={title}
        onClick={() => setOpen(true)}
      >
        <BellIcon />
        {badge ? (
          <span className="bell-badge" aria-hidden="true">
            {badge}
          </span>
        ) : null}
      </button>
      {open ? <InboxPanel onClose={() => setOpen(false)} /> : null}
    </div>
  );
}

function BellIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      width="20"
      height="20"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}
