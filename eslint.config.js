// One lint setup for the whole repository: typescript-eslint with type information, so that
// an un-awaited promise (an `expect` that never ran) is an error; and ARCHITECTURE.md's allowed
// imports as rules (scripts/architecture/lint-rules.test.ts proves a forbidden import fails).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// ---- ARCHITECTURE.md's allowed imports ---------------------------------------------------------
// A relative import that climbs to one of the repository's top-level folders, at any depth. (Only
// the root has folders of these names — bench/harness/ is exempt: bench/ may use harness/.)
const intoRoot = (...folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const forbid = (regex, message) => ({ regex, message });

const noReferenceServer = forbid(
  intoRoot('reference-server'),
  "Nothing imports reference-server/ except the CLI's `serve` and `register-client` commands (harness/cli.ts, on demand): the suite talks to the server over HTTP(S), as to any target.",
);
const noTargets = forbid(
  intoRoot('test/targets'),
  'Nothing imports test/targets/: the suite never knows the independent targets it is tested against.',
);

/** The folder rules, one entry per layer; later entries refine earlier ones for the same files. */
const importRules = [
  {
    files: ['schemas/**/*.ts'],
    patterns: [
      forbid(
        intoRoot(
          'requirements',
          'core',
          'judges',
          'fixtures',
          'specs',
          'harness',
          'self-validation',
          'reference-server',
          'bench',
          'test',
          'examples',
          'scripts',
        ),
        'schemas/ imports nothing of ours.',
      ),
    ],
  },
  {
    files: ['requirements/**/*.ts'],
    patterns: [
      forbid(
        intoRoot(
          'core',
          'judges',
          'fixtures',
          'specs',
          'harness',
          'self-validation',
          'reference-server',
          'bench',
          'test',
          'examples',
          'scripts',
        ),
        'requirements/ imports schemas/ only.',
      ),
    ],
  },
  {
    files: ['core/**/*.ts'],
    patterns: [
      forbid(
        intoRoot('judges', 'fixtures', 'specs', 'harness', 'self-validation'),
        'core/ is the layer below judges/, fixtures/ and harness/: it imports schemas/ and requirements/ only, never the layers built on it.',
      ),
      noReferenceServer,
      noTargets,
    ],
  },
  {
    files: ['judges/**/*.ts'],
    patterns: [
      forbid(
        intoRoot('fixtures', 'specs', 'harness', 'self-validation', 'bench', 'test', 'examples', 'scripts'),
        'judges/ decides requirements from exchanges for both `run` (fixtures/) and `audit` (harness/): it imports core/, schemas/ and requirements/ only.',
      ),
      noReferenceServer,
      noTargets,
    ],
  },
  {
    files: ['fixtures/**/*.ts'],
    patterns: [
      forbid(
        intoRoot('harness', 'self-validation'),
        'fixtures/ never imports harness/ (the CLI) or self-validation/: what both need lives in core/.',
      ),
      forbid(intoRoot('specs'), 'fixtures/ never imports specs/: spec support lives in fixtures/support/<area>/.'),
      noReferenceServer,
      noTargets,
    ],
  },
  {
    files: ['specs/**/*.ts'],
    patterns: [
      forbid(
        '^\\.{1,2}/(?!(\\.\\./)*(fixtures/index\\.ts$|(schemas|requirements)/(?!.*\\.\\./)))',
        "A spec imports only fixtures/index.ts and its own area's fixtures/support/<area>/ (plus schemas/ and requirements/): a spec lives in specs/<area>/.",
      ),
    ],
  },
  // A spec of specs/<area>/ imports the test API (fixtures/index.ts), its own area's support
  // (fixtures/support/<area>/) and the contract (schemas/, requirements/); no `..` leads out of them.
  ...readdirSync(join(import.meta.dirname, 'specs'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map(({ name: area }) => ({
      files: [`specs/${area}/**/*.ts`],
      patterns: [
        forbid(
          `^\\.{1,2}/(?!(\\.\\./)*(fixtures/index\\.ts$|(fixtures/support/${area}|schemas|requirements)/(?!.*\\.\\./)))`,
          `A spec of specs/${area}/ imports only fixtures/index.ts and fixtures/support/${area}/ (plus schemas/ and requirements/): no other spec file, no other area or its support, no other fixtures/ module (a helper several areas share belongs in fixtures/index.ts), never core/, harness/ or reference-server/.`,
        ),
      ],
    })),
  {
    files: ['harness/**/*.ts'],
    patterns: [
      forbid(
        intoRoot('fixtures', 'specs'),
        'harness/ never imports fixtures/ or specs/ (it runs them through Playwright): what both need lives in core/; tests of fixtures/ code live in fixtures/test/.',
      ),
      noReferenceServer,
      noTargets,
    ],
  },
  // The product never depends on its test tooling: only harness/'s tests may use the self-validation's proxy and faults.
  {
    files: ['harness/**/*.ts'],
    ignores: ['harness/**/test/**', 'harness/test/**', 'harness/**/*.test.ts', 'harness/**/*.check.ts'],
    patterns: [
      forbid(
        intoRoot('fixtures', 'specs'),
        'harness/ never imports fixtures/ or specs/ (it runs them through Playwright): what both need lives in core/; tests of fixtures/ code live in fixtures/test/.',
      ),
      forbid(
        intoRoot('self-validation'),
        "harness/ is product and self-validation/ is test tooling on top of it (not shipped): only harness/'s tests may import it.",
      ),
      noReferenceServer,
      noTargets,
    ],
  },
  // The self-validation stands where harness/ stands (it runs the suite through Playwright as `run` does).
  {
    files: ['self-validation/**/*.ts'],
    patterns: [
      forbid(
        intoRoot('fixtures', 'specs'),
        'self-validation/ never imports fixtures/ or specs/ (it runs them through Playwright; its spec wrappers name them as files): what both need lives in core/.',
      ),
      noReferenceServer,
      noTargets,
    ],
  },
  // The one door into the reference server: the CLI's `serve` and `register-client` (dynamic imports).
  {
    files: ['harness/cli.ts'],
    patterns: [
      forbid(intoRoot('fixtures', 'specs'), 'harness/ never imports fixtures/ or specs/.'),
      forbid(intoRoot('self-validation'), 'harness/ never imports self-validation/ (test tooling).'),
      noTargets,
    ],
  },
  {
    files: ['reference-server/**/*.ts'],
    patterns: [
      forbid(
        intoRoot(
          'requirements',
          'core',
          'judges',
          'fixtures',
          'specs',
          'harness',
          'self-validation',
          'bench',
          'test',
          'examples',
          'scripts',
        ),
        'reference-server/ imports schemas/ only: it is one target among others and never knows the suite.',
      ),
    ],
  },
  { files: ['bench/**/*.ts'], patterns: [noReferenceServer, noTargets] },
  {
    files: ['test/targets/**/*.ts'],
    patterns: [
      forbid(
        '^(\\.\\./)+(judges|fixtures|specs|harness|self-validation)(/|$)|^(\\.\\./)+core/(?!profile/jsonc\\.ts$)',
        'test/targets/ imports nothing of ours (its tests run the CLI and may use core/profile/jsonc.ts).',
      ),
      noReferenceServer,
    ],
  },
];

// The reference server's domain is pure: no HTTP framework, no database, no process, no clock, no
// randomness of its own; time, randomness, storage and signing come in through src/domain/ports.ts.
const domainPackages = ['fastify', '@fastify/*', 'better-sqlite3', 'pg', 'pino', 'undici', 'jose', 'selfsigned'];
const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));
const domainImports = [
  forbid(
    `^(node:.*|${nodeBuiltins.map((m) => m.replace(/[/.]/g, '\\$&')).join('|')})$`,
    'reference-server/src/domain imports no Node built-in: what it needs comes in through src/domain/ports.ts.',
  ),
  forbid(
    `^(${domainPackages.map((p) => p.replace('*', '.*')).join('|')})(/|$)`,
    'reference-server/src/domain imports no HTTP framework, database, logger or crypto library: they live in http/, store/, crypto/ behind src/domain/ports.ts.',
  ),
];
/** Relative imports that leave src/domain, for a file `depth` folders below it. */
const outOfDomain = (depth) =>
  forbid(
    `^(\\.\\./){${depth + 1}}`,
    'reference-server/src/domain imports only itself (and its ports): never http/, store/, crypto/, gateway/, portal/ or config.',
  );
const domainRules = [0, 1, 2, 3].map((depth) => ({
  files: [`reference-server/src/domain/${'*/'.repeat(depth)}*.ts`],
  patterns: [
    ...importRules.find((r) => r.files[0] === 'reference-server/**/*.ts').patterns,
    ...domainImports,
    outOfDomain(depth),
  ],
}));
const domainGlobals = [
  { name: 'Date', message: 'The domain reads time through its Clock port (src/domain/ports.ts), never Date.' },
  {
    name: 'process',
    message: 'The domain knows no process: configuration comes in as arguments (src/config.ts reads the environment).',
  },
  { name: 'crypto', message: 'The domain gets randomness through its ports (src/domain/ports.ts).' },
  { name: 'setTimeout', message: 'The domain does not wait: time comes in through its Clock port.' },
  { name: 'setInterval', message: 'The domain does not wait: time comes in through its Clock port.' },
];

const noOnly = { selector: "CallExpression[callee.property.name='only']", message: 'No .only in committed code.' };
const clockForkMessage =
  'A time-dependent check states its rule once to the timeline fixture (timeline.holds: issue, moments, obligation); it never forks on the clock (docs/add-a-check.md).';
const noClockFork = [
  ":matches(IfStatement, ConditionalExpression) > Identifier.test[name='clock']",
  ":matches(IfStatement, ConditionalExpression) > .test Identifier[name='clock']:not(.object):not(.property)",
  "MemberExpression[object.name='obligations'][property.name='clock']",
].map((selector) => ({ selector, message: clockForkMessage }));

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'reports/',
      'test-results/',
      'playwright-report/',
      'data/',
      '**/*.js',
      '!eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', noOnly],
    },
  },
  ...[...importRules, ...domainRules].map(({ files, ignores, patterns }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  })),
  {
    files: ['reference-server/src/domain/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', ...domainGlobals],
      'no-restricted-properties': [
        'error',
        {
          object: 'Math',
          property: 'random',
          message: 'The domain gets randomness through its ports (src/domain/ports.ts).',
        },
      ],
    },
  },
  // A time-dependent check states its rule once to the `timeline` fixture (fixtures/timeline.fixture.ts),
  // which picks clock, real-time wait or obligation: a spec never forks on whether the clock moves.
  { files: ['specs/**/*.ts'], rules: { 'no-restricted-syntax': ['error', noOnly, ...noClockFork] } },
  { files: ['eslint.config.js'], extends: [tseslint.configs.disableTypeChecked] },
);
