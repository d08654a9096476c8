import type { SessionResponse } from '@card-console/shared/api/session';
import { useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useRouter, useRouterState } from '@tanstack/react-router';
import { lazy, type ReactNode, Suspense, useEffect, useRef, useState } from 'react';
import { RateLimitNotice } from '../components/rate-limit-notice';
import { useSessionPoll } from '../features/session';
import { signOut } from '../features/session/api/sign-out';
import { leavePage } from '../lib/leave-page';
import { forgetSignedInData } from '../lib/query-client';
import { KeyboardShortcuts } from './keyboard-shortcuts';

// Its code comes after the first screen's, not in the first download; a chunk that cannot load
// leaves the count out rather than failing the screen.
const AttentionLink = lazy(() => import('./attention-link').catch(() => ({ default: () => null })));
// The alerts bell, likewise: after the first screen, and nothing when its chunk cannot load.
const AlertsBell = lazy(() => import('../features/alerts').catch(() => ({ default: () => null })));

/**
 * The signed-in frame: navigation, who is signed in, sign out, and the screen (the matched
 * route's, or `children`: the "Page not found" of an address no route matches).
 */
export function AppShell({
  session,
  children,
}: {
  session: SessionResponse;
  children?: ReactNode;
}) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);
  const mainRef = useRef<HTMLElement>(null);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  // The organisation requires a second factor this person has yet to set up.
  const held = session.secondFactorEnrolmentRequired === true;
  useSessionPoll();
  useFocusMainOnNavigation(mainRef);
  useCloseOnNavigation(setMenuOpen);
  // Escape closes the open menu and gives focus back to its button.
  useEffect(() => {
    if (!menuOpen) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || document.querySelector('[aria-modal="true"]')) return;
      setMenuOpen(false);
      menuButtonRef.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [menuOpen]);

  const onSignOut = async () => {
    setSigningOut(true);
    let providerLogoutUrl: string | undefined;
    try {
      ({ providerLogoutUrl } = await signOut());
    } catch {
      // Signed out or not, this browser forgets everything and shows sign-in.
    }
    await router.navigate({ to: '/sign-in', search: {} });
    forgetSignedInData(queryClient);
    // Signed in with SSO: end the session at the company's identity provider too.
    if (providerLogoutUrl && isWebUrl(providerLogoutUrl)) leavePage(providerLogoutUrl);
  };

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      {/* On a phone the bar holds the name, the attention count, the bell and a menu button; the menu
          opens the navigation, who is signed in and Sign out. Wider, everything is in view. */}
      <header className={menuOpen ? 'topbar menu-open' : 'topbar'}>
        <span className="brand">Card Console</span>
        <button
          ref={menuButtonRef}
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav user-menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true" className="menu-icon" />
          Menu
        </button>
        <nav aria-label="Main" id="main-nav">
          <ul className="nav">
            {/* Held to the policy (a second factor to set up first): only Security. */}
            {held ? null : (
              <>
                <li>
                  <Link to="/overview" activeProps={{ 'aria-current': 'page' }}>
                    Overview
                  </Link>
                </li>
                <li>
                  <Link to="/sub-accounts" activeProps={{ 'aria-current': 'page' }}>
                    Sub accounts
                  </Link>
                </li>
                <li>
                  <Link to="/cards" activeProps={{ 'aria-current': 'page' }}>
                    Cards
                  </Link>
                </li>
                <li>
                  <Link to="/transactions" activeProps={{ 'aria-current': 'page' }}>
                    Transactions
                  </Link>
                </li>
                <Suspense fallback={null}>
                  <AttentionLink />
                </Suspense>
                {/* An admin's bar has no room for it at 1280 (their screens follow): /receipts. */}
                {session.role === 'admin' ? null : (
                  <li>
                    <Link to="/receipts" activeProps={{ 'aria-current': 'page' }}>
                      Receipts
                    </Link>
                  </li>
                )}
                {/* Admins keep the chart; finance, who book to it, read it. */}
                <li>
                  <Link to="/accounting-categories" activeProps={{ 'aria-current': 'page' }}>
                    Chart of accounts
                  </Link>
                </li>
                {session.role === 'admin' ? (
                  <>
                    <li>
                      <Link to="/audit" activeProps={{ 'aria-current': 'page' }}>
                        Audit
                      </Link>
                    </li>
                    <li>
                      <Link to="/people" activeProps={{ 'aria-current': 'page' }}>
                        People
                      </Link>
                    </li>
                  </>
                ) : null}
              </>
            )}
            {/* Every person's own second factors (admins also set the policy there). */}
            <li>
              <Link to="/security" activeProps={{ 'aria-current': 'page' }}>
                Security
              </Link>
            </li>
          </ul>
        </nav>
        {held ? null : (
          <Suspense fallback={null}>
            <AlertsBell />
          </Suspense>
        )}
        <div className="user" id="user-menu">
          <span className="user-email" title={session.email}>
            <EmailText email={session.email} />
          </span>
          <span className={`role role-${session.role}`}>{session.role}</span>
          <button
            type="button"
            className="shortcuts-button"
            aria-keyshortcuts="?"
            title="Keyboard shortcuts (?)"
            onClick={() => setShortcutsOpen(true)}
          >
            <span aria-hidden="true">?</span>
            <span className="visually-hidden">Keyboard shortcuts</span>
          </button>
          <button type="button" onClick={onSignOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      <KeyboardShortcuts
        isAdmin={session.role === 'admin'}
        open={shortcutsOpen}
        setOpen={setShortcutsOpen}
      />
      <main id="main" className="content" tabIndex={-1} ref={mainRef}>
        <RateLimitNotice />
        {children ?? <Outlet />}
      </main>
    </div>
  );
}

/** An email that, short of room, breaks after its "@" before anywhere else. */
function EmailText({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  if (at < 0) return email;
  return (
    <>
      {email.slice(0, at + 1)}
      <wbr />
      {email.slice(at + 1)}
    </>
  );
}

/** A new screen closes the phone's menu: the person has gone where they chose. */
function useCloseOnNavigation(setOpen: (open: boolean) => void) {
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each new pathname
  useEffect(() => setOpen(false), [pathname]);
}

/** Only an http(s) address is followed (never `javascript:` or the like). */
function isWebUrl(url: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(url, window.location.href).protocol);
  } catch {
    return false;
  }
}

/**
 * After moving to another screen, put focus at the start of its content, as a page load
 * would, so keyboard and screen-reader users do not stay on a link that is gone.
 */
function useFocusMainOnNavigation(main: React.RefObject<HTMLElement | null>) {
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each new pathname
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [pathname]);
}
