// Runs the whole conformance suite against the independent oidc-provider target and pins the
// result: the requirements that FAIL or WARN must be exactly those deviations.json lists (the
// library's own departures from the spec, README.md), and nothing else may FAIL or WARN.
//   node --import tsx --test test/targets/oidc-provider/oidc-provider.test.ts
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { parseJsonc } from '../../../core/profile/jsonc.ts';

const here = import.meta.dirname;
const root = join(here, '..', '..', '..');

interface Listening {
  event: 'listening';
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
  caFile: string;
  clients: Record<string, { clientId: string; clientSecret: string }>;
  users: Record<string, { username: string; password: string }>;
}
interface Profile {
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
  plainHttpUrl: string;
  caFile?: string;
  credentials: {
    clients: Record<string, { clientId: string; clientSecret: { env: string } }>;
    users: Record<string, { username: string; password: { env: string } }>;
  };
}
export interface Deviation {
  requirements: string[];
  verdict: 'FAIL' | 'WARN';
  clause: string;
  behaviour: string;
}
interface RequirementVerdict { id: string; verdict: string; reason?: string; checks?: { title: string; verdict: string; blockedBy?: string[] }[] }

/**
 * BLOCKED check results whose named blockers none reads FAIL or WARN in the same report: the root
 * cause would FAIL nowhere (the suite's harness/reporter/unjudged-blocks.ts, restated: nothing here
 * imports the suite).
 */
export function unjudgedBlocks(requirements: RequirementVerdict[]): string[] {
  const verdictOf = new Map(requirements.map((r) => [r.id, r.verdict]));
  return requirements.flatMap((r) => (r.checks ?? [])
    .filter((c) => c.verdict === 'BLOCKED' && (c.blockedBy ?? []).length > 0 && !c.blockedBy!.some((id) => ['FAIL', 'WARN'].includes(verdictOf.get(id) ?? '')))
    .map((c) => `  ${r.id} BLOCKED by ${c.blockedBy!.map((id) => `${id} (${verdictOf.get(id) ?? 'absent'})`).join(', ')} in "${c.title}"`));
}

export const deviations = (JSON.parse(readFileSync(join(here, 'deviations.json'), 'utf8')) as { deviations: Deviation[] }).deviations;

/** requirement ID → the verdict its listed deviation gives it. */
function expectedVerdicts(): Map<string, string> {
  const expected = new Map<string, string>();
  for (const d of deviations) for (const id of d.requirements) expected.set(id, d.verdict);
  return expected;
}

void test('README lists every deviation of deviations.json under its requirement IDs', () => {
  const readme = readFileSync(join(here, 'README.md'), 'utf8');
  const missing = [...expectedVerdicts().keys()].filter((id) => !readme.includes(id));
  assert.deepEqual(missing, [], `README.md does not name ${missing.join(', ')}`);
});

void test('the suite against oidc-provider: FAIL/WARN requirements are exactly the listed deviations', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'oidc-provider-run-'));
  let pinned = false;
  // A failed run keeps its reports (the message names them) for reading.
  t.after(() => { if (pinned) rmSync(work, { recursive: true, force: true }); });

  const target = spawn(process.execPath, ['--import', 'tsx', join(here, 'start.ts')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  target.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  t.after(async () => {
    if (target.exitCode !== null || target.signalCode !== null) return;
    const exited = once(target, 'exit');
    target.kill('SIGTERM');
    await exited;
  });
  const listening = await new Promise<Listening>((resolve, reject) => {
    target.once('exit', (code) => reject(new Error(`the target exited (code ${code}) before listening: ${stderr.join('').slice(-2000)}`)));
    createInterface({ input: target.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return; // the library's own notices
      const parsed = JSON.parse(line) as { event?: string };
      if (parsed.event === 'listening') resolve(parsed as Listening);
    });
  });

  // The committed profile, with this start's addresses and CA; secrets through the environment.
  const profile = parseJsonc(readFileSync(join(here, 'profile.jsonc'), 'utf8')) as Profile;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, client] of Object.entries(profile.credentials.clients)) {
    const started = listening.clients[name];
    assert.ok(started, `setup: the target started client ${name}`);
    assert.equal(started.clientId, client.clientId, `setup: client ${name} has the profile's clientId`);
    env[client.clientSecret.env] = started.clientSecret;
  }
  for (const [name, user] of Object.entries(profile.credentials.users)) {
    const started = listening.users[name];
    assert.ok(started, `setup: the target started user ${name}`);
    assert.equal(started.username, user.username, `setup: user ${name} has the profile's username`);
    env[user.password.env] = started.password;
  }
  Object.assign(profile, {
    $schema: undefined,
    authUrlUs: listening.authUrlUs,
    authUrlEu: listening.authUrlEu,
    baseUrl: listening.baseUrl,
    plainHttpUrl: listening.authUrlUs.replace(/^https:/, 'http:'),
    caFile: listening.caFile,
  });
  const profileFile = join(work, 'oidc-provider.json');
  writeFileSync(profileFile, JSON.stringify(profile, null, 2));

  const reports = join(work, 'reports');
  const run = spawn(process.execPath, [join(root, 'bin', 'token-conformance.js'), 'run', '--target', profileFile, '--reports', reports],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  run.stdout.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  run.stderr.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  const [code] = (await once(run, 'exit')) as [number | null];
  assert.notEqual(code, 2, `the run stopped before any check (exit 2): ${output.join('').slice(-3000)}`);

  const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as { requirements: RequirementVerdict[] };
  const expected = expectedVerdicts();
  const actual = new Map(report.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN').map((r) => [r.id, r]));
  const unexpected = [...actual.values()].filter((r) => expected.get(r.id) !== r.verdict)
    .map((r) => `  ${r.id} ${r.verdict}${expected.has(r.id) ? ` (listed as ${expected.get(r.id)})` : ''}: ${(r.reason ?? '').replace(/\s+/g, ' ').slice(0, 300)}`);
  const missing = [...expected].filter(([id]) => !actual.has(id)).map(([id, verdict]) => {
    const r = report.requirements.find((x) => x.id === id);
    return `  ${id} listed as ${verdict}, got ${r?.verdict ?? '(not in the report)'}${r?.reason ? `: ${r.reason.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`;
  });
  assert.ok(unexpected.length === 0 && missing.length === 0, [
    `FAIL/WARN requirements differ from deviations.json (run exit code ${code}; report ${join(reports, 'conformance.json')}).`,
    `Unexpected FAIL/WARN (${unexpected.length}):`, ...unexpected,
    `Listed deviations not seen (${missing.length}):`, ...missing,
  ].join('\n'));
  const unjudged = unjudgedBlocks(report.requirements);
  assert.deepEqual(unjudged, [], `BLOCKED by a requirement that neither FAILs nor WARNs in the same report:\n${unjudged.join('\n')}`);
  pinned = true;
});
