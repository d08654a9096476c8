import type { Page } from 'playwright-core';

export const DEMO_PASSWORD = 'demo-password';
export const DEMO_ADMIN_TOTP_SECRET = 'JBSWY3DPEHPK3PXP';

export async function signIn(page: Page, email: string, password: string, code?: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const codeField = page.getByLabel('Second-factor code');
  if (code !== undefined && !(await codeField.isVisible())) {
    // Outside demo mode the form learns that a code is needed from the server's answer.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await codeField.waitFor();
  }
  // Six digits send the form by themselves (issue 31): Sign in is pressed only without a code.
  if (code !== undefined) await codeField.fill(code);
  else await page.getByRole('button', { name: 'Sign in' }).click();
  // Signed in: Sign out is in the page (on a phone it waits inside the closed menu). A hang
  // guard, not a timing bound: a product just started may still be opening its people store
  // while another file's product starts beside it.
  const signedIn = page
    .getByRole('button', { name: 'Sign out', includeHidden: true })
    .waitFor({ state: 'attached', timeout: 60_000 });
  // A refusal says why at once, rather than as a minute's wait for a button that never comes.
  const refused = page
    .locator('form .form-error[role="alert"]')
    .waitFor({ timeout: 60_000 })
    .then(async () => {
      const said = await page.locator('form .form-error[role="alert"]').textContent();
      throw new Error(`sign-in as ${email} refused: ${said}`);
    });
  await Promise.race([signedIn, refused]);
  refused.catch(() => {});
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
