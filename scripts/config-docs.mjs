#!/usr/bin/env node
// Writes docs/configuration.md from apps/bff/src/config-docs.ts (the one place each environment
// variable is described). `--check` writes nothing and exits 1 when the page is out of date;
// apps/bff/src/config-docs.test.ts checks the same in `pnpm test`.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// tsx is the BFF's (it runs the BFF's TypeScript everywhere else too).
const require = createRequire(join(root, 'apps', 'bff', 'package.json'));
const api = require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs');
const { tsImport } = await import(pathToFileURL(api).href);
const docs = await tsImport(
  pathToFileURL(join(root, 'apps', 'bff', 'src', 'config-docs.ts')).href,
  import.meta.url,
);

const file = join(root, docs.configurationDocPath);
const wanted = docs.renderConfigurationDoc();
let current = '';
try {
  current = readFileSync(file, 'utf8');
} catch {
  // not written yet
}
if (process.argv.includes('--check')) {
  if (current !== wanted) {
    console.error(`${docs.configurationDocPath} is out of date: run node scripts/config-docs.mjs`);
    process.exit(1);
  }
  console.log(`${docs.configurationDocPath} is up to date`);
} else if (current === wanted) {
  console.log(`${docs.configurationDocPath} is up to date`);
} else {
  writeFileSync(file, wanted);
  console.log(`wrote ${docs.configurationDocPath}`);
}
