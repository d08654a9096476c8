import { useRouter } from '@tanstack/react-router';
import { useEffect, useMemo, useRef } from 'react';
import { Dialog } from '../components/dialog';

type Destination =
  | '/overview'
  | '/transactions'
  | '/cards'
  | '/sub-accounts'
  | '/alerts'
  | '/audit'
  | '/people';

interface GoTo {
  key: string;
  to: Destination;
  label: string;
  adminOnly?: boolean;
}

const GO_TO: GoTo[] = [
  { key: 'o', to: '/overview', label: 'Overview' },
  { key: 't', to: '/transactions', label: 'Transactions' },
  { key: 'c', to: '/cards', label: 'Cards' },
  { key: 's', to: '/sub-accounts', label: 'Sub accounts' },
  // The rules screen is not in the navigation (the bell's inbox links to it): a key reaches it.
  { key: 'l', to: '/alerts', label: 'Alert rules' },
  { key: 'a', to: '/audit', label: 'Audit', adminOnly: true },
  { key: 'p', to: '/people', label: 'People', adminOnly: true },
];

/** How long after "g" the second key still counts. */
const SEQUENCE_MS = 1500;

/**
 * Keys for people who live in the console: "?" lists them, "/" goes to the page's search or first
 * filter, "g" then a letter goes to a screen, j/k move between a list's rows. None fires while
 * typing in a field, with a modifier held, or while a dialog is open.
 */
export function KeyboardShortcuts({
  isAdmin,
  open,
  setOpen,
}: {
  isAdmin: boolean;
  /** Whether the sheet is shown: the shell's Shortcuts button opens it too. */
  open: boolean;
  setOpen: (open: boolean) => void;
}) {
  const router = useRouter();
  const pendingG = useRef(0);
  const goTo = useMemo(() => GO_TO.filter((g) => isAdmin || !g.adminOnly), [isAdmin]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTyping(event.target) || document.querySelector('[aria-modal="true"]')) return;
      const gPressedAt = pendingG.current;
      pendingG.current = 0;
      if (gPressedAt && Date.now() - gPressedAt < SEQUENCE_MS) {
        const target = goTo.find((g) => g.key === event.key);
        if (target) {
          event.preventDefault();
          void router.navigate({ to: target.to });
        }
        return;
      }
      switch (event.key) {
        case '?':
          event.preventDefault();
          setOpen(true);
          return;
        case '/': {
          const field = firstFilter();
          if (!field) return;
          event.preventDefault();
          field.focus();
          return;
        }
        case 'g':
          pendingG.current = Date.now();
          return;
        case 'j':
        case 'k':
          if (moveRow(event.key === 'j' ? 1 : -1)) event.preventDefault();
          return;
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [router, goTo, setOpen]);

  if (!open) return null;
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => setOpen(false)}>
      <dl className="shortcuts">
        <Shortcut keys={['?']}>This list</Shortcut>
        <Shortcut keys={['/']}>Search or first filter of the page</Shortcut>
        {goTo.map((g) => (
          <Shortcut key={g.key} keys={['g', g.key]}>
            Go to {g.label}
          </Shortcut>
        ))}
        <Shortcut keys={['j', 'k']} between="or">
          Next or previous transaction in the list (Enter opens it)
        </Shortcut>
        <Shortcut keys={['Esc']}>Close a dialog or editor</Shortcut>
      </dl>
      <p className="muted">Keys do nothing while you type in a field.</p>
    </Dialog>
  );
}

function Shortcut({
  keys,
  between = 'then',
  children,
}: {
  keys: string[];
  between?: string;
  children: React.ReactNode;
}) {
  return (
    <div className="shortcut">
      <dt>
        {keys.map((k, i) => (
          <span key={k}>
            {i > 0 ? <span className="muted"> {between} </span> : null}
            <kbd>{k}</kbd>
          </span>
        ))}
      </dt>
      <dd>{children}</dd>
    </div>
  );
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  // A checkbox or a button-like input takes no text: the keys stay shortcuts there.
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'file'].includes(target.type);
}

/** The page's search box, else the first field of its filters, else its first text field. */
function firstFilter(): HTMLElement | null {
  const main = document.getElementById('main');
  if (!main) return null;
  const candidates = [
    'input[type="search"]',
    '.filters input:not([type="checkbox"]), .filters select',
    'input[type="text"], input:not([type]), select',
  ];
  for (const selector of candidates) {
    const found = [...main.querySelectorAll<HTMLElement>(selector)].find(
      (el) => el.offsetParent !== null || el.getClientRects().length > 0,
    );
    if (found) return found;
  }
  return null;
}

/** Focus the next (1) or previous (-1) row's link in a transactions list; false if none. */
function moveRow(step: 1 | -1): boolean {
  const links = [
    ...document.querySelectorAll<HTMLAnchorElement>('#main tbody tr.clickable .col-description a'),
  ];
  if (links.length === 0) return false;
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  const next = at === -1 ? (step === 1 ? 0 : links.length - 1) : at + step;
  const link = links[Math.max(0, Math.min(links.length - 1, next))];
  link?.focus();
  link?.scrollIntoView({ block: 'nearest' });
  return true;
}
