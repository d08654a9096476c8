// The documentation's own checks: every environment variable is described once, in
// docs/configuration.md, generated from config-docs.ts and complete against the configuration
// schemas; no other document re-describes one; every relative link in the Markdown resolves;
// and the root README stays short and starts with the commands CI runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  bffGroups,
  configurationDocPath,
  otherGroups,
  renderConfigurationDoc,
  simulatorVariables,
  slug,
  type VariableDoc,
} from './config-docs';
import { loadConfig } from './env';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** The names `loadConfig` reads from the environment it is given, in the order it reads them. */
function namesLoadConfigReads(): string[] {
  const seen = new Set<string>();
  const note = (key: string | symbol) => {
    if (typeof key === 'string' && /^[A-Z][A-Z0-9_]*$/.test(key)) seen.add(key);
  };
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_target, key) => {
      note(key);
      return undefined;
    },
    has: (_target, key) => {
      note(key);
      return false;
    },
  });
  try {
    loadConfig(env);
  } catch {
    // Refused (production without its variables): every variable has been read by then.
  }
  return [...seen];
}

/** `NAME → the literal in .default(…)` for each key of a `z.object({ … })` in a source file. */
function schemaDefaults(path: string, objectStart: string): Map<string, string | undefined> {
  const text = read(path);
  const start = text.indexOf(objectStart);
  expect(start, `${path} has no "${objectStart}"`).toBeGreaterThanOrEqual(0);
  const body = text.slice(start + objectStart.length, text.indexOf('\n});', start));
  const keys = [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)];
  const defaults = new Map<string, string | undefined>();
  keys.forEach((match, i) => {
    const segment = body.slice(match.index, keys[i + 1]?.index ?? body.length);
    const literal = /\.default\((?:'([^']*)'|([\d_]+))\)/.exec(segment);
    defaults.set(
      match[1] as string,
      literal ? (literal[1] ?? literal[2]?.replace(/_/g, '')) : undefined,
    );
  });
  return defaults;
}

/** A documented default as a bare value (`3000`, `info`), or undefined when it is prose. */
const bareDefault = (doc: VariableDoc) => {
  const quoted = /^`([^`]+)`$/.exec(doc.default)?.[1];
  if (quoted !== undefined) return quoted;
  return /^[\w.:@/-]+$/.test(doc.default) && !/^(none|unset)$/.test(doc.default)
    ? doc.default
    : undefined;
};

const bffDocs = Object.fromEntries(bffGroups.flatMap((g) => Object.entries(g.variables)));
const otherDocs = Object.fromEntries(otherGroups.flatMap((g) => Object.entries(g.variables)));

describe('docs/configuration.md', () => {
  it('describes every variable the BFF reads, once, and nothing it does not read', () => {
    const read = namesLoadConfigReads();
    expect(read.length).toBeGreaterThan(30);
    const documented = bffGroups.flatMap((g) => Object.keys(g.variables));
    expect(new Set(documented).size, 'a variable is in two groups').toBe(documented.length);
    expect([...documented].sort()).toEqual([...read].sort());
    for (const [name, doc] of Object.entries(bffDocs)) {
      expect(doc.description.length, name).toBeGreaterThan(10);
      expect(doc.default, name).not.toBe('');
    }
  });

  it("gives the BFF's defaults as its schema has them", () => {
    const defaults = schemaDefaults('apps/bff/src/env.ts', 'const envSchema = z.object({');
    expect([...defaults.keys()].sort()).toEqual(
      Object.keys(bffDocs)
        .filter((n) => n !== 'INIT_CWD')
        .sort(),
    );
    for (const [name, literal] of defaults) {
      if (literal !== undefined)
        expect(bareDefault(bffDocs[name] as VariableDoc), name).toBe(literal);
    }
    // Defaults the schema computes rather than writes out.
    const demo = loadConfig({ DEMO_MODE: '1' });
    expect(bareDefault(bffDocs.PORT as VariableDoc)).toBe(String(demo.port));
    expect(bareDefault(bffDocs.TRUST_PROXY as VariableDoc)).toBe(String(demo.trustProxy));
    expect(bareDefault(bffDocs.LIMIT_WARNING_MAXIMUM_USD as VariableDoc)).toBe(
      String(demo.limitWarningMaximumCents / 100),
    );
  });

  it("describes the simulator's variables, with its schema's defaults", () => {
    const defaults = schemaDefaults(
      'apps/card-service-sim/src/env.ts',
      'const envSchema = z.object({',
    );
    expect(Object.keys(simulatorVariables).sort()).toEqual([...defaults.keys()].sort());
    for (const [name, literal] of defaults) {
      expect(bareDefault(simulatorVariables[name] as VariableDoc), name).toBe(literal);
    }
  });

  it('describes other variables only where something reads them', () => {
    for (const [name, doc] of Object.entries(otherDocs)) {
      for (const file of doc.readBy) expect(read(file), `${file} names ${name}`).toContain(name);
    }
  });

  it('is generated from config-docs.ts (run `node scripts/config-docs.mjs` after a change)', () => {
    expect(read(configurationDocPath)).toBe(renderConfigurationDoc());
  });
});

/** Every Markdown file of ours, from the repository root. */
function markdownFiles(dir = repoRoot): string[] {
  const skip = new Set([
    'node_modules',
    '.git',
    'dist',
    '.data',
    '.test-results',
    '.e2e-artifacts',
    'coverage',
  ]);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.has(entry.name) ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [relative(repoRoot, path)] : [];
  });
}

/** Files a tool writes: measurements and mutation reports quote settings as they were run. */
const generated = (file: string) =>
  file === configurationDocPath ||
  /^bench\/report[^/]*\.md$/.test(file) ||
  /^apps\/bff\/mutation-report[^/]*\.md$/.test(file);

/** The text outside fenced code blocks, line by line (fenced lines become empty). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

describe('each variable is described in one place', () => {
  const names = [
    ...new Set([
      ...Object.keys(bffDocs),
      ...Object.keys(simulatorVariables),
      ...Object.keys(otherDocs),
    ]),
  ];
  const files = markdownFiles().filter((file) => !generated(file));

  it('no other document has a table row or a list entry for a variable', () => {
    const found: string[] = [];
    for (const file of files) {
      prose(read(file)).forEach((line, i) => {
        const firstCell = /^\s*\|([^|]*)\|/.exec(line)?.[1] ?? '';
        const listHead = /^\s*(?:[-*+]|\d+\.)\s+(?:\*\*)?`([A-Z][A-Z0-9_]*)`/.exec(line)?.[1];
        for (const name of names) {
          if (firstCell.includes(`\`${name}\``) || listHead === name) {
            found.push(
              `${file}:${i + 1} describes ${name}: say it in config-docs.ts, link to ${configurationDocPath}`,
            );
          }
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('a document that names a variable links to the configuration page', () => {
    const missing = files.filter((file) => {
      const text = prose(read(file)).join('\n');
      const names = [...Object.keys(bffDocs), ...Object.keys(simulatorVariables)];
      return (
        names.some((name) => text.includes(`\`${name}\``)) &&
        !/\]\([^)]*configuration\.md[)#]/.test(text)
      );
    });
    expect(missing).toEqual([]);
  });
});

/** Anchors a Markdown file offers: its headings as GitHub slugs them, and explicit ids. */
function anchors(file: string): Set<string> {
  const found = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of prose(read(file))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const n = counts.get(base) ?? 0;
      counts.set(base, n + 1);
      found.add(n ? `${base}-${n}` : base);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id[1] as string);
  }
  return found;
}

describe('Markdown links', () => {
  it('every relative link points to a file that exists, and to a heading it has', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      prose(read(file)).forEach((line, i) => {
        const withoutCode = line.replace(/`[^`]*`/g, '');
        for (const link of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
          const target = link[1] as string;
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
          const [path = '', anchor] = target.split('#');
          const to = path === '' ? join(repoRoot, file) : resolve(repoRoot, dirname(file), path);
          const where = `${file}:${i + 1} → ${target}`;
          if (!existsSync(to)) {
            broken.push(`${where}: no such file`);
            continue;
          }
          if (anchor && statSync(to).isFile() && to.endsWith('.md')) {
            if (!anchors(relative(repoRoot, to)).has(anchor))
              broken.push(`${where}: no such heading`);
          }
        }
      });
    }
    expect(broken).toEqual([]);
  });
});

describe('the root README', () => {
  const readme = read('README.md');

  it('is short: what it is, the two commands, the layout, where an endpoint goes, links', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(125);
  });

  it('starts with the demo command, then the very test command CI runs', () => {
    const ci = /^npx .* test$/m.exec(read('.ci/run'))?.[0];
    expect(ci).toBeDefined();
    const [first, second] = (/^```sh\n([\s\S]*?)```/m.exec(readme)?.[1] ?? '').split('\n');
    expect(first).toMatch(/^npx -y pnpm@\S+ install && npx -y pnpm@\S+ start\s+#/);
    expect(second?.startsWith(`${ci} `)).toBe(true);
  });
});
