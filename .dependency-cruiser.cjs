// The arrows between the layers of each app point one way. Run by `pnpm test`
// (apps/bff/src/dependency-rules.test.ts); `npx depcruise apps/bff/src apps/web/src` shows the
// same verdict. docs/architecture.md says what each layer is.
/** @type {import('dependency-cruiser').IConfiguration} */
const bff = 'apps/bff/src';
const web = 'apps/web/src';
const notTests = '\\.(test|property\\.test|contract|e2e|podman)\\.tsx?$';

module.exports = {
  forbidden: [
    {
      name: 'bff-core-imports-nothing-above',
      comment: 'core/ (errors, clock, endpoint declarations) is below every other layer.',
      severity: 'error',
      from: { path: `^${bff}/core/` },
      to: {
        path: `^${bff}/(platform|upstream|features|http|cli|deploy|demo|test)/|^${bff}/(app|index|env)\\.ts$`,
      },
    },
    {
      name: 'bff-platform-below-upstream-features-http',
      comment:
        'platform/ (sessions, audit, security, stores, jobs) knows no feature, upstream call or HTTP wiring.',
      severity: 'error',
      from: { path: `^${bff}/platform/`, pathNot: notTests },
      to: {
        path: `^${bff}/(upstream|features|http|cli|demo)/|^${bff}/(app|index|server|stores)\\.ts$`,
      },
    },
    {
      name: 'bff-upstream-below-features-http',
      comment:
        'upstream/ (the card service client, the paginator) serves features; it never calls up.',
      severity: 'error',
      from: { path: `^${bff}/upstream/`, pathNot: notTests },
      to: { path: `^${bff}/(features|http|cli|demo)/|^${bff}/(app|index)\\.ts$` },
    },
    {
      name: 'bff-features-below-http',
      comment:
        'A feature declares its endpoints; http/ builds the Express router from them, not the reverse; it receives its stores from the composition (stores.ts), never opens them.',
      severity: 'error',
      from: { path: `^${bff}/features/`, pathNot: notTests },
      to: { path: `^${bff}/(http|cli|demo)/|^${bff}/(app|index|server|stores)\\.ts$` },
    },
    {
      name: 'bff-features-talk-through-their-index',
      comment:
        "A feature uses another only through that feature's index.ts (what it offers others), never its internals; tests too. features/feature-deps.ts, the deps every feature receives, is shared.",
      severity: 'error',
      from: { path: `^${bff}/features/([^/]+)/` },
      to: {
        path: `^${bff}/features/([^/]+)/`,
        pathNot: [`^${bff}/features/$1/`, `^${bff}/features/[^/]+/index\\.ts$`],
      },
    },
    {
      name: 'bff-production-never-imports-tests',
      comment: 'Test helpers live in test/ and are imported by tests only.',
      severity: 'error',
      from: { path: `^${bff}/`, pathNot: `${notTests}|^${bff}/test/` },
      to: { path: `^${bff}/test/|${notTests}` },
    },
    {
      name: 'web-lib-and-components-below-features',
      comment:
        'lib/ and components/ are shared by features; they know none of them, nor the shell.',
      severity: 'error',
      from: { path: `^${web}/(lib|components)/`, pathNot: notTests },
      to: { path: `^${web}/(features|routes|app)/` },
    },
    {
      name: 'web-features-below-routes',
      comment:
        'Routes and the shell (app/: navigation, the bell, shortcuts) compose features; a feature never imports either.',
      severity: 'error',
      from: { path: `^${web}/features/`, pathNot: notTests },
      to: { path: `^${web}/(routes|app)/` },
    },
    {
      name: 'web-app-uses-features-through-their-api',
      comment:
        'The shell uses a feature as any other feature would: through its api/ folder and its index.ts.',
      severity: 'error',
      from: { path: `^${web}/app/`, pathNot: notTests },
      to: {
        path: `^${web}/features/`,
        pathNot: [`^${web}/features/[^/]+/api/`, `^${web}/features/[^/]+/index\\.ts$`],
      },
    },
    {
      name: 'web-features-talk-through-their-api',
      comment:
        "A feature uses another only through that feature's api/ folder (its queries) and its index.ts (what it offers others), never its internals.",
      severity: 'error',
      from: { path: `^${web}/features/([^/]+)/`, pathNot: notTests },
      to: {
        path: `^${web}/features/([^/]+)/`,
        pathNot: [
          `^${web}/features/$1/`,
          `^${web}/features/[^/]+/api/`,
          `^${web}/features/[^/]+/index\\.ts$`,
        ],
      },
    },
    {
      name: 'no-circular',
      comment:
        "No cycle that exists at run time. A cycle through an `import type` is not one (the import is erased): features' index.ts files join whole features into one node, so alerts reading the index's row type while the index opens the alerts' store is such a cycle.",
      severity: 'error',
      from: { path: `^(${bff}|${web})/`, pathNot: notTests },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'routeTree\\.gen\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs'],
    },
  },
};
