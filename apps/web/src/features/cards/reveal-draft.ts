// The reason typed for a reveal, kept across a trip to the identity provider (the step-up of a
// single sign-on person is a full-page navigation there and back). In this tab's sessionStorage
// only, for one card, for ten minutes: a reason is no secret (the audit trail keeps it), and no
// revealed value is ever stored.

const KEY = 'card-console:reveal-draft';
const KEEP_MS = 10 * 60_000;

interface Draft {
  cardId: string;
  reason: string;
  savedAt: number;
}

/** Keeps `reason` for `cardId` until the person is back (or ten minutes pass). */
export function keepRevealDraft(cardId: string, reason: string): void {
  try {
    const draft: Draft = { cardId, reason, savedAt: Date.now() };
    sessionStorage.setItem(KEY, JSON.stringify(draft));
  } catch {
    // Storage refused (private mode, quota): the person types the reason again.
  }
}

/** The reason kept for `cardId`, if it is recent; undefined otherwise. Leaves it in place. */
export function peekRevealDraft(cardId: string): string | undefined {
  try {
    const draft = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Draft> | null;
    if (!draft || draft.cardId !== cardId || typeof draft.reason !== 'string') return undefined;
    if (typeof draft.savedAt !== 'number' || Date.now() - draft.savedAt > KEEP_MS) return undefined;
    return draft.reason;
  } catch {
    return undefined;
  }
}

/** Forgets the kept reason (used, or the dialog closed). */
export function dropRevealDraft(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing kept.
  }
}
