// The package as a user gets it: `npm pack`, install the tarball into an empty project (from the
// local tarball and the npm cache; CI has the registry), and use it from there with `npx` —
// `run --start-reference` against a profile of that project to a PASS report, then `gate`,
// `keygen`/`bundle`/`verify` on that report, and `serve`. Run by the `package` stage of `npm test`
// (scripts/test-stages.ts); on its own: node --import tsx --test scripts/package/pack-install.check.ts
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a non-zero exit is a result, not an exception. */
async function sh(command: string, args: string[], cwd: string): Promise<Result> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, CI: '1', NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `npx --no token-conformance …` in the project: the installed package only, never a download. */
const cli = (project: string, args: string[]): Promise<Result> =>
  sh(npx, ['--no', 'token-conformance', ...args], project);

interface PackEntry {
  path: string;
}
interface PackResult {
  filename: string;
  entryCount: number;
  size: number;
  files: PackEntry[];
}

void describe('the packed package, installed into another project', () => {
  const work = mkdtempSync(join(tmpdir(), 'tc-package-'));
  const project = join(work, 'project');
  /** Where npm put the installed package, found as the user's project finds it (Node's module resolution). */
  const installedDir = () =>
    dirname(createRequire(join(project, 'package.json')).resolve('token-conformance/package.json'));
  let packed: PackResult;
  after(() => rmSync(work, { recursive: true, force: true }));

  before(async () => {
    const pack = await sh(npm, ['pack', '--json', '--pack-destination', work], root);
    assert.equal(pack.code, 0, `npm pack failed: ${pack.stderr}`);
    packed = (JSON.parse(pack.stdout) as PackResult[])[0]!;
    rmSync(project, { recursive: true, force: true });
    await sh('mkdir', ['-p', project], work);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'uses-token-conformance', private: true, type: 'commonjs' }, null, 2),
    );
    const install = await sh(
      npm,
      ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)],
      project,
    );
    assert.equal(install.code, 0, `npm install of the tarball failed: ${install.stderr}`);
    // A profile of the user's project (not a path into node_modules/).
    copyFileSync(join(installedDir(), 'profiles', 'reference.json'), join(project, 'my-target.json'));
  });

  void test('the tarball ships what a user runs and no tests', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of [
      'bin/token-conformance.js',
      'playwright.config.ts',
      'harness/cli.ts',
      'harness/reporter/conformance.reporter.ts',
      'core/run/run-contract.ts',
      'core/run/run-manifest.ts',
      'core/profile/load-profile.ts',
      'fixtures/index.ts',
      'reference-server/src/main.ts',
      'fixtures/reference-seed.json',
      'profiles/reference.json',
      'requirements/requirements.json',
      'schemas/target-profile.schema.json',
      'schemas/openapi.json',
    ]) {
      assert.ok(paths.includes(needed), `the tarball lacks ${needed}`);
    }
    const tests = paths.filter((p) => /(^|\/)test\/|\.test\.ts$|^(bench|scripts)\//.test(p));
    assert.deepEqual(tests, [], 'tests, benchmarks and scripts stay out of the tarball');
  });

  void test('every relative link of the packed README resolves inside the installed package', () => {
    const readme = readFileSync(join(installedDir(), 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((l) => !/^(https?:|mailto:|#)/.test(l));
    assert.ok(links.length > 5, `the README links its documents (found ${links.length})`);
    const missing = links.filter((l) => !existsSync(join(installedDir(), l.split('#')[0]!)));
    assert.deepEqual(missing, [], 'README links that the package does not contain');
  });

  void test("run --start-reference against the project's profile: a PASS report in the project's reports/", async () => {
    const result = await cli(project, [
      'run',
      '--target',
      'my-target.json',
      '--start-reference',
      '--grep',
      '@GRANT-CC-001',
    ]);
    assert.equal(result.code, 0, `run exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /CONFORMANCE PASS: 1 PASS, 0 FAIL/);
    // Paths are printed from where the user stands.
    assert.match(result.stdout, / reports\/conformance\.json/);
    const report = JSON.parse(readFileSync(join(project, 'reports', 'conformance.json'), 'utf8')) as {
      verdict: string;
    };
    assert.equal(report.verdict, 'PASS');
    const installed = installedDir();
    for (const stray of ['reports', 'test-results'])
      assert.ok(!existsSync(join(installed, stray)), `run wrote ${stray}/ inside the installed package`);
  });

  void test('version and init from the installed package', async () => {
    // `npx token-conformance --version` would print npm's own version (npx reads --version):
    // through npx the command is `version`.
    const version = await cli(project, ['version']);
    assert.equal(
      version.stdout.trim(),
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
    );
    const init = await cli(project, [
      'init',
      '--out',
      'staging.jsonc',
      '--name',
      'staging',
      '--auth-url-us',
      'https://auth.example.com',
      '--client',
      'usClient=abc',
    ]);
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /^export STAGING_US_CLIENT_SECRET=…$/m);
  });

  void test('gate, keygen, bundle and verify on that report', async () => {
    const gate = await cli(project, ['gate', 'reports/conformance.json']);
    assert.equal(gate.code, 0, `gate: ${gate.stdout}${gate.stderr}`);
    assert.equal((await cli(project, ['keygen', '--private', 'signing.pem', '--public', 'signing.pub.pem'])).code, 0);
    const bundle = await cli(project, [
      'bundle',
      '--key',
      'signing.pem',
      '--out',
      'results.bundle.json',
      '--profile',
      'my-target.json',
    ]);
    assert.equal(bundle.code, 0, `bundle: ${bundle.stdout}${bundle.stderr}`);
    const verify = await cli(project, ['verify', 'results.bundle.json', '--key', 'signing.pub.pem']);
    assert.equal(verify.code, 0, `verify: ${verify.stdout}${verify.stderr}`);
  });

  void test('audit from the installed package: a HAR judged, the reports and SARIF written', async () => {
    const entry = {
      startedDateTime: '2026-01-01T00:00:00.000Z',
      time: 3,
      request: {
        method: 'POST',
        url: 'https://auth.example.com/api/v1/auth/oauth2/token',
        headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }],
        postData: {
          mimeType: 'application/x-www-form-urlencoded',
          text: 'grant_type=client_credentials&client_id=c&client_secret=s',
        },
      },
      response: {
        status: 200,
        headers: [{ name: 'Content-Type', value: 'application/json' }],
        content: {
          size: 60,
          mimeType: 'application/json',
          text: '{"access_token":"a-token-of-at-least-22-characters","token_type":"Bearer","expires_in":3600}',
        },
      },
    };
    writeFileSync(
      join(project, 'traffic.har'),
      JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [entry] } }),
    );
    const audit = await cli(project, ['audit', 'traffic.har', '--out', 'reports/audit']);
    // No Cache-Control and no Pragma on the token response: FAIL, exit 1.
    assert.equal(audit.code, 1, `audit: ${audit.stdout}${audit.stderr}`);
    assert.match(audit.stdout, /FAIL TOKEN-RESP-005/);
    assert.ok(existsSync(join(project, 'reports', 'audit', 'audit.sarif')));
  });

  void test('serve: the reference server starts from the installed package and answers', async () => {
    // The package's executable (what npm links and `npx token-conformance` runs), started directly
    // so that the test stops the server itself, not an npx wrapper around it.
    const { bin: bins } = JSON.parse(readFileSync(join(installedDir(), 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const bin = join(installedDir(), bins['token-conformance']!);
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--http', '--data', ':memory:'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const listening = await new Promise<{ authUrlUs: string }>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          if (line.includes('"listening"')) resolve(JSON.parse(line) as { authUrlUs: string });
        });
        child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening`)));
      });
      // A token from the seeded demo client (the installed profile's credentials), so the server
      // really runs from node_modules/: its store, seed file and crypto.
      const profile = JSON.parse(readFileSync(join(project, 'my-target.json'), 'utf8')) as {
        credentials: { clients: { usClient: { clientId: string; clientSecret: { value: string } } } };
      };
      const { clientId, clientSecret } = profile.credentials.clients.usClient;
      const response = await fetch(`${listening.authUrlUs}/api/v1/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret.value,
        }).toString(),
      });
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(typeof ((await response.json()) as { access_token?: unknown }).access_token, 'string');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
