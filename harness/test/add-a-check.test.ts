// docs/add-a-check.md, walked as written: in a copy of the repository, its catalogue entry is
// appended, its spec written, its fault added to the catalogue, and its commands run — the new
// check PASSes against the reference server and FAILs under the planted fault.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const guide = readFileSync(join(root, 'docs', 'add-a-check.md'), 'utf8');

/** The fenced blocks of language `lang` in the guide's step `n` (`## n. …`). */
function blocks(n: number, lang: string): string[] {
  const step = guide.split(/^## /m).find((s) => s.startsWith(`${n}. `));
  assert.ok(step, `docs/add-a-check.md has a step "## ${n}."`);
  return [...step.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

/** The fenced blocks of language `lang` in the guide's section titled `title` (`## title`). */
function sectionBlocks(title: string, lang: string): string[] {
  const section = guide.split(/^## /m).find((s) => s.startsWith(`${title}\n`));
  assert.ok(section, `docs/add-a-check.md has a section "## ${title}"`);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

/** A copy of the repository's files (tracked and new, not ignored), sharing its node_modules. */
function copyRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-add-a-check-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '');
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    try {
      copyFileSync(join(root, f), join(dir, f));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // deleted in the work tree, not yet in the index
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** A command of the guide as argv: `npx token-conformance` is the copy's own CLI. */
function argv(line: string): string[] {
  const words = line
    .replace(/\s+&\s*$/, '')
    .trim()
    .split(/\s+/);
  if (words[0] === 'npx' && words[1] === 'token-conformance')
    return [join('bin', 'token-conformance.js'), ...words.slice(2)];
  assert.equal(words[0], 'node', `a command the test can run: ${line}`);
  return words.slice(1);
}

function run(dir: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: '1' },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

const verdictOf = (dir: string, reports: string, id: string) =>
  (
    JSON.parse(readFileSync(join(dir, reports, 'conformance.json'), 'utf8')) as {
      requirements: { id: string; verdict: string }[];
    }
  ).requirements.find((r) => r.id === id)?.verdict;

void describe('docs/add-a-check.md: add a check in five steps', () => {
  let dir = '';
  let broken: ChildProcess | undefined;
  before(() => {
    dir = copyRepository();
  });
  after(async () => {
    // serve-broken-target stops its servers and removes its own temporary directory on SIGTERM.
    if (broken && broken.exitCode === null && broken.signalCode === null) {
      const exited = new Promise((resolve) => broken!.once('exit', resolve));
      broken.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  void test('steps 1-3: the catalogue entry, the spec and the fault go in as written', () => {
    const [entry] = blocks(1, 'json');
    const catalogueFile = join(dir, 'requirements', 'requirements.json');
    const catalogue = JSON.parse(readFileSync(catalogueFile, 'utf8')) as { requirements: unknown[] };
    catalogue.requirements.push(JSON.parse(entry!));
    writeFileSync(catalogueFile, `${JSON.stringify(catalogue, null, 2)}\n`);

    const [spec] = blocks(2, 'ts');
    const specPath = /^\/\/ (specs\/\S+\.spec\.ts)\n/.exec(spec!)?.[1];
    assert.ok(specPath, 'the spec block names its file on its first line');
    writeFileSync(join(dir, specPath), spec!);

    const [fault] = blocks(3, 'ts');
    const faultsFile = join(dir, 'self-validation', 'faults', 'token-responses.ts');
    const list = 'export const tokenResponseFaults: Fault[] = [\n';
    const faults = readFileSync(faultsFile, 'utf8');
    assert.ok(faults.includes(list), 'the fault list the guide names exists');
    writeFileSync(faultsFile, faults.replace(list, `${list}${fault!}`));
  });

  void test(
    'steps 4-5: PASS against the reference server, FAIL under the planted fault',
    { timeout: 600_000 },
    async () => {
      const [commands] = blocks(4, 'sh');
      const [clean, serveBroken, againstBroken] = commands!.trim().split('\n');

      const first = await run(dir, argv(clean!));
      assert.equal(first.code, 0, first.out.slice(-3000));
      assert.match(first.out, /CONFORMANCE PASS: 1 PASS/);
      assert.equal(verdictOf(dir, 'reports/new-check', 'TOKEN-RESP-900'), 'PASS');

      broken = spawn(process.execPath, argv(serveBroken!), { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: broken!.stdout! }).on('line', (l) => {
          if (l.includes('"ready"')) resolve();
        });
        broken!.once('exit', (code) => reject(new Error(`serve-broken-target exited (${code}) before it was ready`)));
      });
      const second = await run(dir, argv(againstBroken!));
      assert.equal(second.code, 1, second.out.slice(-3000));
      assert.match(second.out, /FAIL TOKEN-RESP-900 +Error: no id_token — got HTTP 200/);
      assert.equal(verdictOf(dir, 'reports/new-check-broken', 'TOKEN-RESP-900'), 'FAIL');

      // The same requirement decided by a judge (the one `audit` runs), the check handing it the exchange.
      const [judge, judgedSpec] = sectionBlocks('When traffic can show it: a judge', 'ts');
      const judgesFile = join(dir, 'judges', 'token-judges.ts');
      const list = 'export const tokenSuccessJudges: Judge[] = [\n';
      const judges = readFileSync(judgesFile, 'utf8');
      assert.ok(judges.includes(list), 'the judge list the guide names exists');
      writeFileSync(judgesFile, judges.replace(list, `${list}${judge!}`));
      writeFileSync(join(dir, /^\/\/ (specs\/\S+\.spec\.ts)\n/.exec(judgedSpec!)![1]!), judgedSpec!);
      const judgedClean = await run(dir, argv(clean!));
      assert.equal(judgedClean.code, 0, judgedClean.out.slice(-3000));
      assert.equal(verdictOf(dir, 'reports/new-check', 'TOKEN-RESP-900'), 'PASS');
      const judgedBroken = await run(dir, argv(againstBroken!));
      assert.equal(judgedBroken.code, 1, judgedBroken.out.slice(-3000));
      assert.match(
        judgedBroken.out,
        /FAIL TOKEN-RESP-900 +Error: a successful client_credentials response carries an id_token/,
      );
    },
  );
});
