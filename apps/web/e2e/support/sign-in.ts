import type { Page } from 'playwright-core';

export const DEMO_PASSWORD = 'demo-password';
export const DEMO_ADMIN_TOTP_SECRET = 'JBSWY3DPEHPK3PXP';

/**
 * Signs in through the form. `code` is the second factor: a code, or where it comes from (as
 * `() => freshTotp(secret)`), asked for only when the field is there to take it, so it has its
 * whole margin left; a code the server found no longer good (a step ended while a loaded machine
 * hashed the password) is replaced by the next one once, as a person would type the next.
 */
export async function signIn(
  page: Page,
  email: string,
  password: string,
  code?: string | (() => Promise<string>),
) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const codeField = page.getByLabel('Second-factor code');
  if (code !== undefined && !(await codeField.isVisible())) {
    // Outside demo mode the form learns that a code is needed from the server's answer.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await codeField.waitFor();
  }
  const codeOf = async () => (typeof code === 'function' ? code() : (code as string));
  // Six digits send the form by themselves (issue 31): Sign in is pressed only without a code.
  if (code !== undefined) await codeField.fill(await codeOf());
  else await page.getByRole('button', { name: 'Sign in' }).click();
  const refusal = await signedInOrRefused(page);
  if (refusal === undefined) return;
  if (typeof code === 'function' && /code/i.test(refusal)) {
    await codeField.fill(await code());
    // The next code is sent: the last refusal goes as it is.
    await page.locator('form .form-error[role="alert"]').waitFor({ state: 'detached' });
    const again = await signedInOrRefused(page);
    if (again === undefined) return;
    throw new Error(`sign-in as ${email} refused twice: ${refusal} / ${again}`);
  }
  throw new Error(`sign-in as ${email} refused: ${refusal}`);
}

/**
 * Signs in with the password and then the passkey the page's virtual authenticator holds
 * (`virtual-authenticator.ts`): the password right, the server asks for the second factor (a
 * 401 saying which), and "Use a passkey" sends the signed assertion.
 */
export async function signInWithPasskey(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const answer = page.waitForResponse(
    (r) => r.url().endsWith('/api/session') && r.request().method() === 'POST',
  );
  await page.getByRole('button', { name: 'Sign in' }).click();
  const status = (await answer).status();
  if (status !== 401) throw new Error(`the password alone was answered ${status}, not 401`);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Signs out with the top bar's button, and waits for the sign-in page. */
export async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/sign-in/);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
}

/**
 * Waits until signed in (undefined) or refused (what the form said). Signed in: Sign out is in
 * the page (on a phone it waits inside the closed menu). A hang guard, not a timing bound: a
 * product just started may still be opening its people store while another file's product
 * starts beside it. A refusal says why at once, rather than as a minute's wait.
 */
async function signedInOrRefused(page: Page): Promise<string | undefined> {
  const said = page.locator('form .form-error[role="alert"]');
  const signedIn = page
    .getByRole('button', { name: 'Sign out', includeHidden: true })
    .waitFor({ state: 'attached', timeout: 60_000 })
    .then(() => undefined);
  const refused = said
    .waitFor({ timeout: 60_000 })
    .then(async () => (await said.textContent()) ?? '');
  refused.catch(() => {});
  return Promise.race([signedIn, refused]);
}

/** Minimal RFC 4180 reader for the export (quoted fields, doubled quotes, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
