// Whether this tab was signed in: a 401 then means the session ended (idle timeout, signed out
// in another tab or by an admin), which sign-in says, rather than "never signed in". Per tab
// (sessionStorage): a reload keeps it, another tab's sign-out does not clear it, and signing
// out here does. Nothing about the person is stored, only that a session was seen.
const KEY = 'card-console.signed-in';

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined; // storage blocked: sign-in then says nothing, as before
  }
}

/** The app has a session in this tab. */
export function rememberSignedIn(): void {
  try {
    storage()?.setItem(KEY, '1');
  } catch {
    // full or blocked: nothing to remember with
  }
}

/** The person signed out here: a later 401 is no news to them. */
export function forgetSignedIn(): void {
  storage()?.removeItem(KEY);
}

/** A 401 now means the session this tab had has ended. */
export function hadSessionHere(): boolean {
  return storage()?.getItem(KEY) === '1';
}
