// ARCHITECTURE.md's allowed imports are lint rules (eslint.config.js): a planted file in each
// folder that imports what its layer must not fails `eslint` with the rule's message, and the
// imports the layers allow pass. The planted text is linted through ESLint's Node API with the
// repository's own config, at a path inside the folder (no file is written); type-aware rules are
// switched off for it, as they need the file in the TypeScript project and judge nothing here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });

/** The rule ids that fire on `code` planted at `file` (repository-relative). */
async function violations(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  assert.ok(result, 'ESLint linted the planted text');
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], 'the planted text parses');
  return result.messages.map((m) => m.ruleId ?? '').filter((id) => id.startsWith('no-restricted-'));
}

// Each planted import uses its binding, so only the import rules can object.
const importing = (specifier: string) => `import { x } from '${specifier}';\nexport const y = x;\n`;

void describe('lint fails on a forbidden import', () => {
  const forbidden: [string, string, string][] = [
    ['fixtures/planted.ts', '../harness/reporter/verdict.ts', 'fixtures/ → harness/'],
    ['fixtures/support/gateway/planted.ts', '../../../specs/gateway/paths.spec.ts', 'fixtures/ → specs/'],
    ['fixtures/planted.ts', '../reference-server/src/main.ts', 'fixtures/ → reference-server/'],
    ['harness/commands/planted.ts', '../../fixtures/target.ts', 'harness/ → fixtures/'],
    ['harness/test/planted.test.ts', '../../fixtures/index.ts', 'a harness/ test → fixtures/'],
    ['harness/test/planted.test.ts', '../../reference-server/src/crypto/tls.ts', 'a harness/ test → reference-server/'],
    ['harness/commands/planted.ts', '../../specs/limits/rate-limits.spec.ts', 'harness/ → specs/'],
    ['core/profile/planted.ts', '../../harness/cli.ts', 'core/ → harness/'],
    ['core/run/planted.ts', '../../fixtures/index.ts', 'core/ → fixtures/'],
    ['core/run/planted.ts', '../../judges/registry.ts', 'core/ → judges/'],
    ['judges/planted.ts', '../harness/audit/ledger.ts', 'judges/ → harness/'],
    ['judges/planted.ts', '../fixtures/index.ts', 'judges/ → fixtures/'],
    ['judges/planted.ts', '../specs/gateway/paths.spec.ts', 'judges/ → specs/'],
    ['judges/planted.ts', '../self-validation/fault.ts', 'judges/ → self-validation/'],
    ['judges/planted.ts', '../reference-server/src/main.ts', 'judges/ → reference-server/'],
    [
      'specs/token-responses/planted.spec.ts',
      '../../judges/registry.ts',
      'a spec → judges/ (it goes through fixtures/index.ts)',
    ],
    ['reference-server/src/http/planted.ts', '../../../judges/registry.ts', 'reference-server/ → judges/'],
    ['schemas/planted.ts', '../judges/judge.ts', 'schemas/ → judges/'],
    ['requirements/planted.ts', '../judges/judge.ts', 'requirements/ → judges/'],
    ['test/targets/oidc-provider/planted.ts', '../../../judges/registry.ts', 'test/targets/ → judges/'],
    ['specs/gateway/planted.spec.ts', '../../fixtures/target.ts', 'a spec → a fixtures/ module other than index.ts'],
    ['specs/gateway/planted.spec.ts', '../../core/profile/profile.schema.ts', 'a spec → core/'],
    ['specs/gateway/planted.spec.ts', '../../harness/reporter/verdict.ts', 'a spec → harness/'],
    ['specs/bearer/planted.spec.ts', '../gateway/paths.spec.ts', 'a spec area → another'],
    ['specs/bearer/planted.spec.ts', './helper.ts', 'a spec → a support file beside it'],
    [
      'specs/bearer/planted.spec.ts',
      '../../fixtures/support/gateway/gateway-trigger.ts',
      "a spec → another area's support",
    ],
    [
      'specs/gateway/planted.spec.ts',
      '../../fixtures/support/gateway/../../target.ts',
      'a spec → out of its own support through ..',
    ],
    [
      'specs/gateway/planted.spec.ts',
      '../../fixtures/support/gateway-extra/helper.ts',
      'a spec → a support folder whose name only starts with its area',
    ],
    [
      'specs/new-area/planted.spec.ts',
      '../../fixtures/support/new-area/helper.ts',
      'a spec of an area not yet known → area support',
    ],
    ['schemas/planted.ts', '../requirements/index.ts', 'schemas/ → requirements/'],
    ['requirements/planted.ts', '../core/catalogue/catalogue.ts', 'requirements/ → core/'],
    ['reference-server/src/http/planted.ts', '../../../core/redaction/redact.ts', 'reference-server/ → core/'],
    ['reference-server/test/planted.test.ts', '../../harness/cli.ts', 'a reference-server test → harness/'],
    ['reference-server/src/domain/planted.ts', '../http/logging.ts', 'the domain → http/'],
    [
      'reference-server/src/domain/grants/planted.ts',
      '../../store/sqlite-store.ts',
      'the domain (a subfolder) → store/',
    ],
    ['reference-server/src/domain/planted.ts', 'fastify', 'the domain → an HTTP framework'],
    ['reference-server/src/domain/planted.ts', 'better-sqlite3', 'the domain → a database'],
    ['reference-server/src/domain/portal/planted.ts', 'node:crypto', 'the domain → a Node built-in'],
    ['reference-server/src/domain/planted.ts', 'fs', 'the domain → a Node built-in without the node: prefix'],
    ['bench/planted.ts', '../reference-server/src/main.ts', 'bench/ → reference-server/'],
    ['test/targets/oidc-provider/planted.ts', '../../../harness/cli.ts', 'test/targets/ → harness/'],
    [
      'test/targets/oidc-provider/planted.ts',
      '../../../core/profile/load-profile.ts',
      'test/targets/ → core/ beyond jsonc.ts',
    ],
    ['harness/commands/planted.ts', '../../test/targets/oidc-provider/providers.ts', 'the suite → test/targets/'],
    [
      'harness/commands/planted.ts',
      '../../self-validation/proxy.ts',
      'harness/ (product) → self-validation/ (test tooling)',
    ],
    ['harness/cli.ts', '../self-validation/run-self-validation.ts', 'the CLI → self-validation/'],
    ['core/run/planted.ts', '../../self-validation/fault.ts', 'core/ → self-validation/'],
    ['fixtures/planted.ts', '../self-validation/fault-switch.ts', 'fixtures/ → self-validation/'],
    ['self-validation/planted.ts', '../fixtures/index.ts', 'self-validation/ → fixtures/'],
    ['self-validation/faults/planted.ts', '../../specs/gateway/paths.spec.ts', 'self-validation/ → specs/'],
    ['self-validation/planted.ts', '../reference-server/src/main.ts', 'self-validation/ → reference-server/'],
  ];
  for (const [file, specifier, what] of forbidden) {
    void test(`${what}: ${file} importing ${specifier}`, async () => {
      assert.deepEqual(await violations(file, importing(specifier)), ['no-restricted-imports']);
    });
  }

  void test('an `export … from` and an `import type` are imports too', async () => {
    assert.deepEqual(await violations('fixtures/planted.ts', "export { x } from '../harness/cli.ts';\n"), [
      'no-restricted-imports',
    ]);
    assert.deepEqual(
      await violations('fixtures/planted.ts', "import type { X } from '../harness/cli.ts';\nexport type Y = X;\n"),
      ['no-restricted-imports'],
    );
  });

  void test('the domain reads no clock, no process, no randomness of its own', async () => {
    assert.deepEqual(await violations('reference-server/src/domain/planted.ts', 'export const now = Date.now();\n'), [
      'no-restricted-globals',
    ]);
    assert.deepEqual(
      await violations('reference-server/src/domain/grants/planted.ts', 'export const env = process.env.X;\n'),
      ['no-restricted-globals'],
    );
    assert.deepEqual(await violations('reference-server/src/domain/planted.ts', 'export const r = Math.random();\n'), [
      'no-restricted-properties',
    ]);
  });
});

void describe('lint allows what ARCHITECTURE.md allows', () => {
  const allowed: [string, string][] = [
    ['specs/gateway/planted.spec.ts', '../../fixtures/index.ts'],
    ['specs/gateway/planted.spec.ts', '../../schemas/index.ts'],
    ['specs/gateway/planted.spec.ts', '../../requirements/index.ts'],
    ['specs/gateway/planted.spec.ts', '../../fixtures/support/gateway/gateway-trigger.ts'],
    ['specs/properties/planted.spec.ts', '../../fixtures/support/properties/lifecycle/lifecycle.property.ts'],
    ['fixtures/planted.ts', '../core/redaction/redact.ts'],
    ['fixtures/support/gateway/planted.ts', '../../clients/responses.ts'],
    ['harness/commands/planted.ts', '../../core/profile/load-profile.ts'],
    ['harness/audit/planted.ts', '../../judges/registry.ts'],
    ['fixtures/planted.ts', '../judges/registry.ts'],
    ['judges/planted.ts', '../core/profile/profile.schema.ts'],
    ['judges/planted.ts', '../schemas/gateway-error-codes.ts'],
    ['judges/planted.ts', '../requirements/index.ts'],
    ['core/run/planted.ts', '../redaction/redact.ts'],
    ['core/catalogue/planted.ts', '../../requirements/index.ts'],
    ['requirements/planted.ts', '../schemas/index.ts'],
    ['reference-server/src/http/planted.ts', '../../../schemas/index.ts'],
    ['reference-server/src/http/planted.ts', 'fastify'],
    ['reference-server/src/domain/planted.ts', './ports.ts'],
    ['reference-server/src/domain/grants/planted.ts', '../ports.ts'],
    ['bench/planted.ts', '../harness/reference/start-reference.ts'],
    ['test/targets/oidc-provider/planted.ts', '../../../core/profile/jsonc.ts'],
    ['self-validation/planted.ts', '../harness/reference/start-reference.ts'],
    ['self-validation/planted.ts', '../core/profile/load-profile.ts'],
    ['harness/test/planted.test.ts', '../../self-validation/proxy.ts'],
    ['harness/audit/test/planted.test.ts', '../../../self-validation/faults/index.ts'],
  ];
  for (const [file, specifier] of allowed) {
    void test(`${file} importing ${specifier}`, async () => {
      assert.deepEqual(await violations(file, importing(specifier)), []);
    });
  }

  void test('the CLI is the one door into the reference server (serve, register-client: dynamic imports)', async () => {
    assert.deepEqual(await violations('harness/cli.ts', importing('../reference-server/src/main.ts')), []);
  });
});

// One body per time-dependent check: the `timeline` fixture decides between moving the target's
// clock, a real-time wait and an obligation, so no spec forks on whether the clock moves.
void describe('a spec never forks on the clock', () => {
  const forks: [string, string][] = [
    [
      'if (!clock)',
      'export async function body(clock?: { advance(s: number): Promise<void> }) {\n  if (!clock) return;\n  await clock.advance(1);\n}\n',
    ],
    [
      'if (clock === undefined)',
      'export function body(clock?: object) {\n  if (clock === undefined) return 1;\n  return 2;\n}\n',
    ],
    ['clock ? … : …', 'export const body = (clock?: object) => (clock ? 1 : 2);\n'],
    ['reading obligations.clock', 'export const body = (obligations: { clock?: object }) => obligations.clock;\n'],
  ];
  for (const [what, code] of forks) {
    void test(`lint refuses ${what} in a spec`, async () => {
      assert.deepEqual(await violations('specs/lifecycle/planted.spec.ts', code), ['no-restricted-syntax']);
    });
  }

  void test('a spec may still use the clock fixture it asks for, and .only stays refused', async () => {
    assert.deepEqual(
      await violations(
        'specs/limits/planted.spec.ts',
        'export async function body(clock: { now(): Promise<number> }, a: number) {\n  if (a > await clock.now()) return 1;\n  return 2;\n}\n',
      ),
      [],
    );
    assert.deepEqual(
      await violations(
        'specs/limits/planted.spec.ts',
        "declare const test: { only(t: string): void };\ntest.only('x');\n",
      ),
      ['no-restricted-syntax'],
    );
  });

  void test('no spec of the tree contains `if (!clock`', () => {
    const specs = readdirSync(join(root, 'specs'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    assert.ok(specs.length > 0, 'the specs are found');
    const forking = specs.filter((f) =>
      /if\s*\(\s*!\s*(obligations\.)?clock\b/.test(readFileSync(join(root, 'specs', f), 'utf8')),
    );
    assert.deepEqual(forking, []);
  });
});
