const DEFAULT_TARGET = '/overview';

/** Only ever return somewhere inside this app: a path, never another origin or the sign-in page. */
export function safeRedirect(target: string | undefined): string {
  if (!target) return DEFAULT_TARGET;
  if (!target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) {
    return DEFAULT_TARGET;
  }
  if (target === '/sign-in' || target.startsWith('/sign-in?')) return DEFAULT_TARGET;
  return target;
}
