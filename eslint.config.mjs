// ESLint (flat config): type-aware TypeScript rules and module boundaries on the Nx project tags.
// `npm run lint` first has Nx write its project graph (`nx show projects`; the boundary rule reads it,
// and skips itself without one), then runs ESLint with --max-warnings 0; .ci/run runs it before the tests.
//
// Layering (tags in each project.json; docs/architecture.md, "Processes" and "Ports and adapters"):
//   type:contracts  libs/shared     bus subjects, message and HTTP schemas: depends on nothing of ours
//   type:platform   libs/platform   adapters and mechanisms shared by the services: contracts only
//   type:config     libs/config     configuration loading: contracts and platform
//   type:service    services/*      one service each: libs only, never another service nor an app
//   type:app        apps/*          the launchers: compose services and libs
//   type:testing    libs/testing    test infrastructure (databases, NATS/Redis/S3 servers, stubs): libs only
//   type:test       test/, test/support   end-to-end suites and the helpers that start the whole system
//   type:dashboard  clients/dashboard  the web dashboard: the SDK and the contracts' types only
//   type:bench      bench/          benchmarks: services and apps through their package entry only
// The services and the launchers are Nx projects of type "library" (they are imported: apps compose the
// services, tests start the launchers); the type:* tags above, not the project type, say who may import whom.
// Production code never imports libs/testing; test files (*.spec.ts, *.int-spec.ts, *.e2e-spec.ts,
// *.fixture.ts) may. Imports between projects go through the package name (`@agent-memory/memory`),
// never a relative path into another project's src/.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';

const LIBS = ['type:contracts', 'type:platform', 'type:config'];

/** The dependency constraints for production code; `testFiles` adds libs/testing where a test may use it. */
function depConstraints(testFiles) {
  const testing = testFiles ? ['type:testing'] : [];
  return [
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', ...testing] },
    { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', ...testing] },
    { sourceTag: 'type:config', onlyDependOnLibsWithTags: [...LIBS, ...testing] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: [...LIBS, 'type:testing'] },
    { sourceTag: 'type:service', onlyDependOnLibsWithTags: [...LIBS, ...testing] },
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: [...LIBS, 'type:service', ...testing] },
    // the clients reach the service over HTTP only: the TypeScript SDK reads the contracts; the CLI (and its MCP server) the SDK
    { sourceTag: 'type:client', onlyDependOnLibsWithTags: ['type:contracts', 'type:client', ...testing, ...(testFiles ? ['type:test'] : [])] },
    { sourceTag: 'type:cli', onlyDependOnLibsWithTags: ['type:contracts', 'type:client', 'type:cli', ...testing, ...(testFiles ? ['type:test'] : [])] },
    { sourceTag: 'type:test', onlyDependOnLibsWithTags: [...LIBS, 'type:service', 'type:app', 'type:testing', 'type:test', 'type:client', 'type:cli'] },
    // the dashboard reaches the service over HTTP only, through the SDK; it reads the contracts' types
    { sourceTag: 'type:dashboard', onlyDependOnLibsWithTags: ['type:contracts', 'type:client', 'type:dashboard'] },
    { sourceTag: 'type:bench', onlyDependOnLibsWithTags: [...LIBS, 'type:service', 'type:app', 'type:testing', 'type:test', 'type:client'] },
  ];
}

// White-box suites (a service's persistence adapters against a real database, the use cases under a
// fault) may open another service's persistence/ and use-cases/ by relative path; nothing else may.
const WHITE_BOX_IMPORTS = ['^(\\.\\./)+(services/)?(agents|billing|files|memory|records)/src/(persistence|use-cases)/', '^(\\.\\./)+billing/src/billing\\.fixture$'];

const boundaries = (testFiles) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    banTransitiveDependencies: false,
    checkDynamicDependenciesExceptions: [],
    allow: testFiles ? WHITE_BOX_IMPORTS : [],
    depConstraints: depConstraints(testFiles),
  },
];

const TEST_FILES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/*.fixture.ts'];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', '**/data/**', 'coverage/**', 'tmp/**', '.nx/**', '.ci/.node/**'],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // adapters implement async ports with `async` methods even when they do not await: a thrown error
      // then still reaches the caller as a rejection
      '@typescript-eslint/require-await': 'off',
      // a variable a callback reads before its one assignment (a server handler and the server) stays `let`
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@nx/enforce-module-boundaries': boundaries(false),
    },
  },
  {
    // Tests and their library read HTTP bodies and bus replies as `any` and hand jest mocks and async test doubles around:
    // the no-unsafe-* family and unbound-method are off there. The promise rules stay on.
    files: [...TEST_FILES, 'test/**/*.ts', 'libs/testing/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(true),
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // a cluster-mode suite sets E2E_MODE, then require()s the standalone suite (an import would be hoisted)
      '@typescript-eslint/no-require-imports': ['error', { allow: ['\\.e2e-spec$'] }],
    },
  },
  {
    // the dashboard (React, in the browser): its own tsconfig (DOM, JSX), the hooks rules and the accessibility rules
    files: ['clients/dashboard/**/*.ts', 'clients/dashboard/**/*.tsx', 'clients/dashboard/**/*.mts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked, reactHooks.configs.flat.recommended, jsxA11y.flatConfigs.recommended],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/require-await': 'off',
      // untrusted content is shown as text only (docs/dashboard.md, "Security")
      'no-restricted-syntax': ['error', { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'memories, files and names are untrusted: render them as text' }],
      '@nx/enforce-module-boundaries': boundaries(false),
    },
  },
  {
    // plain JavaScript (tools, configs): no type information
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
);
