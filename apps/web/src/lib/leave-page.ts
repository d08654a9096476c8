/**
 * A full-page navigation away from the app (the identity provider's sign-out). Its own
 * module so tests can replace it: jsdom cannot navigate, nor can `location.assign` be spied.
 */
export function leavePage(url: string): void {
  window.location.assign(url);
}
