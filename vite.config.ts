import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import web from './apps/web/vite.config';

const bff = {
  root: './apps/bff',
  environment: 'node' as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // One image of a new embedded cluster for the run, which `memoryEngine()` starts from; the
  // registry of the PostgreSQL clusters the run's files start, any left running stopped when it
  // ends; and the bundle production runs, which the tests that start a BFF process start.
  globalSetup: [
    './src/test/engines/embedded-image.setup.ts',
    './src/test/engines/postgres-reaper.setup.ts',
    './src/test/engines/bff-bundle.setup.ts',
  ],
  // One module graph per worker, not one per file: each file imports the whole app through the
  // test harness, and evaluating it again for every file was a third of the project's time on two
  // cores. What the BFF keeps at module level is caches of pure results; every store, limiter,
  // metrics registry and clock is made by `createApp` for its app, so a file cannot leak into
  // the next. A file that mocks a module runs isolated (`bff-runtime-mocked`).
  isolate: false,
};
/**
 * The test files under `dir` (relative to `root`) that change the process for their own tests:
 * they mock a module, stub a global or the environment, or set the time zone. Found by reading
 * them, so a new one is isolated without being listed by hand.
 */
function changingTheProcess(root: string, dir: string): string[] {
  const changes =
    /inTimeZone\(|vi\.mock\(|vi\.doMock\(|vi\.stubGlobal|vi\.stubEnv|process\.env\.TZ/;
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .filter((file) => changes.test(readFileSync(join(root, dir, file), 'utf8')))
    .map((file) => `${dir}/${file}`);
}
/** The BFF's files that replace a module: the mock must not reach another file. */
const mocking = changingTheProcess('./apps/bff', 'src');
/** The SPA's files that change the process for their own tests (see the `web` projects). */
const webIsolated = changingTheProcess('./apps/web', 'src');
/** The two suites of the app's own rules: the authorization matrix and the request properties. */
const appRules = [
  'src/http/authorization-matrix.test.ts',
  'src/http/random-requests.property.test.ts',
];

/**
 * Files that spend most of their time waiting on the clock by design (the living demo's next
 * decline and the bell's next ask, a card service that answers slowly), relative to the
 * workspace. Vitest runs a clean clone's files largest first, which put these small ones last:
 * a minute at the end of the browser flows with one file waiting and the other worker idle.
 */
const waitingOnTheClock = [
  'apps/web/e2e/living-demo.e2e.ts',
  'apps/web/e2e/slow-card-service.e2e.ts',
];

const workspace = fileURLToPath(new URL('.', import.meta.url));

/**
 * Vitest's order (a project at a time; within one, failed and longest first by the last run's
 * results, else largest first), with each project's files that wait on the clock moved to the
 * front of it, where others' work runs beside their waiting.
 */
class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (file: TestSpecification) =>
      waitingOnTheClock.includes(relative(workspace, file.moduleId));
    // Projects stay in Vitest's order; within each, a stable sort puts the waiting files first.
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    const rank = (file: TestSpecification) =>
      projects.indexOf(file.project.name) * 2 + (waits(file) ? 0 : 1);
    return sorted.toSorted((a, b) => rank(a) - rank(b));
  }
}

/** One Vitest run for the whole workspace: a project per package, plus the browser flows. */
export default defineConfig({
  test: {
    sequence: { sequencer: WaitingFirst },
    projects: [
      { test: { name: 'shared', root: './packages/shared', environment: 'node' } },
      {
        test: {
          name: 'sim',
          root: './apps/card-service-sim',
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      // The features and the app's rules (the authorization matrix, the request properties).
      {
        test: {
          ...bff,
          name: 'bff',
          include: ['src/features/**/*.test.ts', ...appRules],
          // A file that replaces a module runs isolated, in `bff-runtime-mocked`: unisolated here,
          // the module it mocks may be loaded already by another file (its mock then never
          // applies) or its mock reach another file.
          exclude: [...configDefaults.exclude, ...mocking],
        },
      },
      // The BFF's server, its stores and engines, its processes and its deployment: everything
      // else under `apps/bff/src`. `pnpm test` runs these once, on the deployment's runtime (Node
      // 24, the image's), and the other projects once on the machine's Node (decision 0005).
      {
        test: {
          ...bff,
          name: 'bff-runtime',
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'src/features/**', ...appRules, ...mocking],
        },
      },
      { test: { ...bff, name: 'bff-runtime-mocked', include: mocking, isolate: true } },
      // The screens, in one module graph per worker (isolate: false): each file imports the same
      // React, router and MSW, which cost more than its tests (the project on two cores: 168 s
      // → ~70 s). The files that set the time zone (a screen's module makes its date formatters
      // at load, in the zone of the test that loaded it), mock a module or stub a global run
      // isolated in `web-isolated`.
      {
        ...web,
        test: { ...web.test, isolate: false, exclude: [...configDefaults.exclude, ...webIsolated] },
      },
      { ...web, test: { ...web.test, name: 'web-isolated', include: webIsolated } },
      {
        test: {
          name: 'e2e',
          root: './apps/web',
          include: ['e2e/**/*.e2e.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 300_000,
          // A browser check waits as long as a locator does (page.setDefaultTimeout, 15 s), not
          // Vitest's 1 s: on a loaded CI machine a screen can take longer than that to settle,
          // and a poll that passes returns as soon as it holds.
          expect: { poll: { timeout: 15_000 } },
          // The product is built once for the run (`pnpm build`), then each file starts its own
          // (its port, its data directory) from that build: two files at a time, since they
          // wait on the product and the browser more than they compute (decision 0005).
          globalSetup: ['./e2e/support/build-once.ts'],
          // A file at a time more than the machine's cores, after every other project (a
          // project with its own number of workers runs in a group of its own): a file spends
          // much of its time waiting on its product and its browser, and one file (the living
          // demo's) waits out the clock. Three on two cores took the flows from ~400 s to 335–358 s
          // with the machine ~95 % busy; decision 0005.
          maxWorkers: availableParallelism() + 1,
          // A worker runs its files one after another in one module graph: Playwright, axe-core
          // and the support modules load once a worker, not once a file (the flows' imports
          // were ~60 s of a run, ~2.9 s a file on a loaded machine). Each file still starts
          // and stops its own product and browser; what the support modules remember between
          // files is the TOTP steps used, kept by file (support/totp.ts).
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
