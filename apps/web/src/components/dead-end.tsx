import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useDocumentTitle } from './use-document-title';

interface DeadEndProps {
  title: string;
  /** What happened, in a sentence or two. */
  children: ReactNode;
  /** Where to go on from here: a link. */
  back: ReactNode;
}

/**
 * A screen that cannot be shown (nothing there, or not for this person): says so plainly and
 * offers the way back. No "Retry": asking again would give the same answer.
 */
export function DeadEnd({ title, children, back }: DeadEndProps) {
  useDocumentTitle(title);
  return (
    <section className="dead-end" aria-labelledby="dead-end-title">
      <h1 id="dead-end-title">{title}</h1>
      <p>{children}</p>
      <p>{back}</p>
    </section>
  );
}

/** An address that is no page of the app (`/nope`): said plainly, with a way in. */
export function NotFound() {
  return (
    <DeadEnd title="Page not found" back={<Link to="/overview">Go to the Overview</Link>}>
      There is nothing at this address. Check the link, or start again from the Overview.
    </DeadEnd>
  );
}

/**
 * The same outside the app's frame (nobody signed in): it carries the product's name itself.
 */
export function NotFoundPage() {
  return (
    <main className="dead-end-page" id="main">
      <p className="dead-end-brand">Card Console</p>
      <NotFound />
    </main>
  );
}
