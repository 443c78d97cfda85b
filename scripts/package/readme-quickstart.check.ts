// The packed README as a new user meets it: `npm pack`, the tarball installed into an empty
// project, then (1) every relative link of the packed README and docs/ resolves inside the package,
// (2) every `npx token-conformance COMMAND` it shows is a command of the installed CLI and no
// `npm run` script (which exists only in a clone) is shown outside the Development section, and
// (3) the README's own-target quickstart, walked command by command from the installed package
// against a reference server started with `serve` WITHOUT test controls (a staging-like target: no
// clock, no fault switch), ends with `gate --require-verified verifiable` passing.
// On its own: node --import tsx --test scripts/package/readme-quickstart.check.ts
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { commandNames } from '../../harness/cli.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Result> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, CI: '1', NO_COLOR: '1', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The quickstart block of a markdown text: the ```sh fence after the own-target marker. */
export function quickstartBlock(markdown: string): string {
  const at = markdown.indexOf('<!-- own-target quickstart');
  assert.ok(at >= 0, 'the README has no own-target quickstart marker');
  const fence = markdown.indexOf('```sh\n', at);
  return markdown.slice(fence + 6, markdown.indexOf('```', fence + 6));
}

/** Shell words of one command line (quotes and backslash continuations; a `#` comment dropped). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let inWord = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === '#' && !inWord) break;
    else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The block's commands, one per entry (continuation lines joined). */
export function commandsOf(block: string): string[][] {
  return block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map(shellWords)
    .filter((w) => w.length > 0);
}

const screaming = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

void describe('the packed README: links, commands, and its own-target quickstart walked from the tarball', () => {
  const work = mkdtempSync(join(tmpdir(), 'tc-readme-'));
  const project = join(work, 'project');
  const installedDir = () =>
    dirname(createRequire(join(project, 'package.json')).resolve('token-conformance/package.json'));
  after(() => rmSync(work, { recursive: true, force: true }));

  before(async () => {
    const pack = await sh(npm, ['pack', '--json', '--pack-destination', work], root);
    assert.equal(pack.code, 0, `npm pack failed: ${pack.stderr}`);
    const { filename } = (JSON.parse(pack.stdout) as { filename: string }[])[0]!;
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'own-target', private: true }, null, 2));
    // The quickstart's first command, from the tarball instead of the registry.
    const install = await sh(
      npm,
      ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', join(work, filename)],
      project,
    );
    assert.equal(install.code, 0, `npm install of the tarball failed: ${install.stderr}`);
  });

  void test('every relative link in the packed README and docs/ resolves inside the package', () => {
    const installed = installedDir();
    const pages = [
      'README.md',
      ...readdirSync(join(installed, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(installed, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/i.test(target)) continue;
        if (!existsSync(join(installed, dirname(page), target))) broken.push(`${page}: ${m[1]}`);
      }
    }
    assert.deepEqual(broken, [], 'links to files the package does not contain');
  });

  void test('the README shows only commands of the installed CLI, and no npm script outside the Development section', () => {
    const readme = readFileSync(join(installedDir(), 'README.md'), 'utf8');
    // `version` and `help` are the CLI's own words beside its commands (harness/cli.ts).
    const commands = new Set([...commandNames(), 'version', 'help']);
    const unknown = [...readme.matchAll(/npx token-conformance ([a-z][a-z-]*)/g)]
      .map((m) => m[1]!)
      .filter((c) => !commands.has(c));
    assert.deepEqual([...new Set(unknown)], [], 'commands the CLI does not have');
    const forUsers = readme.split(/^## Development$/m)[0]!;
    const scripts = [...forUsers.matchAll(/^(?!.*in a clone).*npm run [a-z:-]+.*$/gm)]
      .map((m) => m[0])
      .filter((l) => !l.startsWith('npm install && npm start'));
    assert.deepEqual(scripts, [], 'npm scripts exist only in a clone of the repository');
  });

  void test('the own-target quickstart, walked from the installed package against a target without test controls: init, check-profile, run, gate --require-verified verifiable', async () => {
    const readme = readFileSync(join(installedDir(), 'README.md'), 'utf8');
    const block = quickstartBlock(readme);
    assert.equal(
      quickstartBlock(
        `<!-- own-target quickstart -->\n${readFileSync(join(installedDir(), 'docs', 'own-target.md'), 'utf8').split('## Quickstart')[1]!}`,
      ),
      block,
      'docs/own-target.md shows the same quickstart',
    );
    const reference = JSON.parse(readFileSync(join(installedDir(), 'profiles', 'reference.json'), 'utf8')) as {
      credentials: {
        clients: Record<string, { clientId: string; clientSecret: { value: string } }>;
        users: Record<string, { password: { value: string } }>;
      };
    };
    const bin = join(installedDir(), 'bin', 'token-conformance.js');
    const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data', ':memory:', '--log-level', 'warn'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      const listening = await new Promise<{ authUrlUs: string; caFile: string; testControls: boolean }>(
        (resolve, reject) => {
          createInterface({ input: server.stdout }).on('line', (l) => {
            if (l.includes('"listening"'))
              resolve(JSON.parse(l) as { authUrlUs: string; caFile: string; testControls: boolean });
          });
          server.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening`)));
        },
      );
      assert.equal(listening.testControls, false, 'a staging-like target: no clock, no fault switch');
      // The placeholders of the quickstart, as this target spells them (each must appear: a README that changes them fails here).
      const placeholders: [string, string][] = [
        ['https://auth-us.staging.example.com', listening.authUrlUs],
        ['https://api.staging.example.com', listening.authUrlUs],
        ['usClient=0oa1-cc-client', `usClient=${reference.credentials.clients.usClient!.clientId}`],
        [
          'usPasswordClient=0oa1-pw-client',
          `usPasswordClient=${reference.credentials.clients.usPasswordClient!.clientId}`,
        ],
      ];
      for (const [placeholder] of placeholders)
        assert.ok(block.includes(placeholder), `the quickstart no longer shows ${placeholder}`);
      const secretOf = (variable: string): string => {
        const name = variable.replace(/^STAGING_/, '');
        const client = Object.entries(reference.credentials.clients).find(([n]) => `${screaming(n)}_SECRET` === name);
        const user = Object.entries(reference.credentials.users).find(([n]) => `${screaming(n)}_PASSWORD` === name);
        const value = client?.[1].clientSecret.value ?? user?.[1].password.value;
        assert.ok(
          value !== undefined,
          `the quickstart exports ${variable}, which names no client or user of the reference seed`,
        );
        return value;
      };
      const env: NodeJS.ProcessEnv = {};
      const seen: string[] = [];
      for (const words of commandsOf(block)) {
        const [head, ...rest] = words;
        if (head === 'npm') {
          assert.deepEqual(rest, ['install', '--save-dev', 'token-conformance'], 'installed from the tarball above');
          continue;
        }
        if (head === 'export') {
          for (const pair of rest) env[pair.split('=')[0]!] = secretOf(pair.split('=')[0]!);
          continue;
        }
        assert.deepEqual([head, rest[0]], [npx, 'token-conformance'], words.join(' '));
        let args = rest.slice(1).map((w) => placeholders.reduce((a, [from, to]) => a.replace(from, to), w));
        // The served target's own CA (a staging with a public certificate needs none).
        if (args[0] === 'init') args = [...args, '--ca-file', listening.caFile];
        const result = await sh(npx, ['--no', 'token-conformance', ...args], project, env);
        seen.push(args[0]!);
        assert.equal(result.code, 0, `${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
        if (args[0] === 'init')
          assert.match(result.stdout, /^This profile lets a run verify up to \d+ of \d+ requirements/m);
        if (args[0] === 'run' && !args.includes('--check-profile')) {
          assert.match(result.stdout, /^Verified: verified \d+ of \d+ requirements/m);
          const report = JSON.parse(readFileSync(join(project, 'reports', 'conformance.json'), 'utf8')) as {
            verification: { verified: number; total: number };
          };
          process.stdout.write(
            `# quickstart run: verified ${report.verification.verified} of ${report.verification.total}\n`,
          );
        }
        if (args[0] === 'gate') assert.match(result.stdout, /^GATE PASS: .*MUST not verifiable as declared/m);
      }
      assert.deepEqual(seen, ['init', 'run', 'run', 'gate']);
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });
  void test('init against a production-like IdP that demands a scope and has none of the suite controls: its profile, unedited, verifies at least 90 % of what the hand-tuned profile verifies', async () => {
    const bin = join(installedDir(), 'bin', 'token-conformance.js');
    // The independent @jmondi/oauth2-server target (no default scope, no clock, no fault switch), started from the clone.
    const target = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'test', 'targets', 'jmondi-oauth2-server', 'start.ts')],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise((resolve) => target.once('exit', resolve));
    try {
      interface TargetListening {
        authUrlUs: string;
        authUrlEu: string;
        baseUrl: string;
        caFile: string;
        clients: Record<string, { clientId: string; clientSecret: string }>;
        users: Record<string, { username: string; password: string }>;
      }
      const listening = await new Promise<TargetListening>((resolve, reject) => {
        createInterface({ input: target.stdout }).on('line', (l) => {
          if (l.startsWith('{') && l.includes('"listening"')) resolve(JSON.parse(l) as TargetListening);
        });
        target.once('exit', (code) => reject(new Error(`the target exited (${code}) before listening`)));
      });
      const handTuned = parseJsonc(
        readFileSync(join(root, 'test', 'targets', 'jmondi-oauth2-server', 'profile.jsonc'), 'utf8'),
      ) as {
        credentials: {
          clients: Record<string, { clientId: string; clientSecret: { env: string }; tokenParameters?: unknown }>;
          users: Record<string, { username: string; password: { env: string } }>;
        };
      } & Record<string, unknown>;
      const env: NodeJS.ProcessEnv = {};
      for (const [name, c] of Object.entries(handTuned.credentials.clients))
        env[c.clientSecret.env] = listening.clients[name]!.clientSecret;
      for (const [name, u] of Object.entries(handTuned.credentials.users))
        env[u.password.env] = listening.users[name]!.password;
      // What an admin would tell a new user: the clients, the users, and the deployment's scope rule.
      const scopes: Record<string, string> = {
        usClient: 'client_credentials.scope=people.read',
        usClient2: 'password.scope=openid email profile company',
        usPasswordClient: 'password.scope=openid email profile company',
      };
      const args = [
        'init',
        '--out',
        'idp.jsonc',
        '--name',
        'idp',
        '--auth-url-us',
        listening.authUrlUs,
        '--auth-url-eu',
        listening.authUrlEu,
        '--base-url',
        listening.baseUrl,
        '--ca-file',
        listening.caFile,
        '--env-prefix',
        'JMONDI_TARGET_',
        ...Object.entries(handTuned.credentials.clients).flatMap(([name, c]) => [
          '--client',
          `${name}=${c.clientId}`,
          '--token-parameter',
          `${name}.${scopes[name] ?? 'scope=people.read'}`,
        ]),
        ...Object.entries(handTuned.credentials.users).flatMap(([name, u]) =>
          name === 'burnableUser' ? ['--burnable-user', u.username] : ['--user', `${name}=${u.username}`],
        ),
        '--person-existing',
        'E-1001',
        '--find-people',
        '--basic',
        '--allow-load',
        '--allow-destructive',
      ];
      const init = await sh(process.execPath, [bin, ...args], project, env);
      assert.equal(init.code, 0, `init exited ${init.code}:\n${init.stdout}\n${init.stderr}`);
      assert.match(init.stdout, /usClient \(client_credentials\): a token with scope=… as given: verified/);
      const verifiedBy = async (profile: string, reports: string) => {
        const run = await sh(process.execPath, [bin, 'run', '--target', profile, '--reports', reports], project, env);
        assert.ok(run.code === 0 || run.code === 1, `run ${profile} exited ${run.code}:\n${run.stderr.slice(-3000)}`);
        return (
          JSON.parse(readFileSync(join(project, reports, 'conformance.json'), 'utf8')) as {
            verification: { verified: number; total: number };
          }
        ).verification;
      };
      writeFileSync(
        join(project, 'hand-tuned.json'),
        JSON.stringify({
          ...handTuned,
          $schema: undefined,
          authUrlUs: listening.authUrlUs,
          authUrlEu: listening.authUrlEu,
          baseUrl: listening.baseUrl,
          plainHttpUrl: listening.authUrlUs.replace(/^https:/, 'http:'),
          caFile: listening.caFile,
        }),
      );
      const byInit = await verifiedBy('idp.jsonc', 'reports-init');
      const byHand = await verifiedBy('hand-tuned.json', 'reports-hand');
      process.stdout.write(
        `# init's profile verified ${byInit.verified} of ${byInit.total}; the hand-tuned one ${byHand.verified} of ${byHand.total}\n`,
      );
      assert.ok(
        byInit.verified >= 0.9 * byHand.verified,
        `init's profile verified ${byInit.verified}, under 90 % of the hand-tuned ${byHand.verified}`,
      );
    } finally {
      target.kill('SIGTERM');
      await exited;
    }
  });
});
