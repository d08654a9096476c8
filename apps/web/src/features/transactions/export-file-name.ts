import { parse } from 'content-disposition';

/**
 * The CSV's name when the server gives none, made as the server makes it: the sub account's
 * name and the days (`operations_2026-11-01_2026-11-21.csv`; `operations_until_2026-11-21.csv`
 * with no first day). `today` is the last day when none is chosen.
 */
export function exportFileName(
  subAccount: string,
  days: { from?: string | undefined; to?: string | undefined; today: string },
): string {
  const slug =
    subAccount
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'transactions';
  const to = days.to ?? days.today;
  return `${slug}_${days.from ? `${days.from}_${to}` : `until_${to}`}.csv`;
}

/**
 * The file name a `Content-Disposition` header gives (`filename*` decoded first), reduced to
 * a plain name: never a path, never a control character.
 */
export function dispositionFileName(header: string | null): string | undefined {
  if (!header) return undefined;
  let name: string | undefined;
  try {
    name = parse(header).parameters.filename;
  } catch {
    return undefined;
  }
  const plain = name
    ?.replace(/\p{Cc}/gu, '')
    .split(/[/\\]/)
    .at(-1)
    ?.trim();
  return plain && plain !== '.' && plain !== '..' ? plain : undefined;
}
