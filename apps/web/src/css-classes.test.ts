// @vitest-environment node
// Every class a stylesheet styles is one the SPA's markup can carry. A class renamed in the
// components and not in their stylesheet leaves the screen unstyled without a failing test (the
// receipt inbox's `inbox-` classes became `rinbox-` in its components only: its screen lost its
// layout, and its rules went on styling the alerts inbox, which has classes of those names).
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const app = resolve(import.meta.dirname, '..');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The classes a stylesheet's selectors name (not its at-rules' conditions, not its values). */
export function selectorClasses(css: string): Set<string> {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const classes = new Set<string>();
  for (const [, prelude = ''] of text.matchAll(/(?<=^|[{};])([^{};]*)\{/g)) {
    if (prelude.trim().startsWith('@')) continue;
    for (const [, name = ''] of prelude.matchAll(/\.(-?[A-Za-z_][\w-]*)/g)) classes.add(name);
  }
  return classes;
}

/**
 * Whether the markup can carry the class: its name is a word of the source, or the source builds
 * it from one of its hyphenated prefixes (`badge-${status}` carries `badge-settled`).
 */
export function carried(name: string, source: string, words: ReadonlySet<string>): boolean {
  if (words.has(name)) return true;
  const parts = name.split('-');
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join('-');
    if (new RegExp(`(?<![\\w-])${prefix}-\\$\\{`).test(source)) return true;
  }
  return false;
}

describe('the stylesheets and the markup', () => {
  it('finds the classes of selectors, not of values or conditions', () => {
    const css = `/* .commented { } */
@media (min-width: 40.5rem) { .a-b:hover > .c, p.d { margin: 0.75rem; background: url(x.png); } }
.e::after{content:"."}`;
    expect([...selectorClasses(css)].sort()).toEqual(['a-b', 'c', 'd', 'e']);
  });

  it('counts a class built from a prefix as carried, and a renamed one as not', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a component.
    const source = 'className={`badge badge-${status}`} className="rinbox-item" id={`rinbox-${g}`}';
    const words = new Set(source.match(/[A-Za-z][\w-]*/g));
    expect(carried('badge-settled', source, words)).toBe(true);
    expect(carried('rinbox-item', source, words)).toBe(true);
    expect(carried('inbox-item', source, words)).toBe(false);
    expect(carried('inbox-group', source, words)).toBe(false);
    expect(carried('rinbox-group', source, words)).toBe(true);
    expect(carried('xbadge-settled', source, words)).toBe(false);
  });

  it('styles no class that no component, page or module of the SPA carries', async () => {
    const files = await filesUnder(join(app, 'src'));
    const markup = files.filter((f) => /\.(tsx?|html)$/.test(f) && !/\.test\.tsx?$/.test(f));
    const source = (
      await Promise.all([...markup, join(app, 'index.html')].map((f) => readFile(f, 'utf8')))
    ).join('\n');
    const words = new Set(source.match(/[A-Za-z][\w-]*/g));
    const sheets = files.filter((f) => f.endsWith('.css'));
    expect(sheets.length).toBeGreaterThan(10);
    const unused: string[] = [];
    for (const sheet of sheets) {
      for (const name of selectorClasses(await readFile(sheet, 'utf8'))) {
        if (!carried(name, source, words)) unused.push(`${relative(app, sheet)}: .${name}`);
      }
    }
    expect(unused).toEqual([]);
  });
});
