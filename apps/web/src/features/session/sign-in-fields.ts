import { isApiError } from '../../lib/api-error';

export type SignInField = 'email' | 'password' | 'totp';
export type SignInFieldErrors = Partial<Record<SignInField, string>>;

const ENTER_EMAIL = 'Enter your email address.';
const EMAIL_SHAPE = 'Enter an email address like name@company.com.';
const ENTER_PASSWORD = 'Enter your password.';
const CODE_SHAPE = 'The code is the 6 digits your authenticator app shows.';

/** What is missing or malformed, field by field, in plain words; empty when all is there. */
export function signInFieldErrors(values: {
  email: string;
  password: string;
  /** Undefined when no code is asked for; an empty code is left to the server to ask for. */
  totp: string | undefined;
}): SignInFieldErrors {
  const errors: SignInFieldErrors = {};
  const email = values.email.trim();
  if (!email) errors.email = ENTER_EMAIL;
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) errors.email = EMAIL_SHAPE;
  if (!values.password) errors.password = ENTER_PASSWORD;
  if (values.totp && !/^\d{6}$/.test(values.totp)) errors.totp = CODE_SHAPE;
  return errors;
}

const SERVER_FIELD_TEXT = new Map<string, [SignInField, string]>([
  ['email', ['email', EMAIL_SHAPE]],
  ['password', ['password', 'Check your password and enter it again.']],
  ['totp', ['totp', CODE_SHAPE]],
]);

/**
 * The BFF's 400 for a sign-in body it refused ("email: Invalid email address", one or more
 * parts, separated by ";"), as the same plain words per field. Its own wording never shows.
 * Undefined when the error is not such a 400 or names no field the form has.
 */
export function signInFieldErrorsFromServer(error: unknown): SignInFieldErrors | undefined {
  if (!isApiError(error) || error.status !== 400) return undefined;
  const errors: SignInFieldErrors = {};
  for (const part of error.message.split(';')) {
    const path = /^\s*([A-Za-z]+)[.:]/.exec(part)?.[1];
    const known = path === undefined ? undefined : SERVER_FIELD_TEXT.get(path);
    if (known) errors[known[0]] = known[1];
  }
  return Object.keys(errors).length > 0 ? errors : undefined;
}
