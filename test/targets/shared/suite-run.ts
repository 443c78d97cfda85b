// What the pinning tests of the independent targets share: start a target (its start.ts prints one
// "listening" line), write its committed profile with this start's addresses, CA and secrets
// (secrets through the environment), run the whole suite through the CLI, and compare the report's
// FAIL/WARN requirements with a pinned list, both ways.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseJsonc } from '../../../core/profile/jsonc.ts';

export const root = join(import.meta.dirname, '..', '..', '..');

export interface Listening {
  event: 'listening';
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
  caFile: string;
  clients: Record<string, { clientId: string; clientSecret: string }>;
  users: Record<string, { username: string; password: string }>;
}
export interface Profile {
  authUrlUs: string;
  authUrlEu: string;
  baseUrl: string;
  plainHttpUrl: string;
  caFile?: string;
  credentials: {
    clients: Record<string, { clientId: string; clientSecret: { env: string }; tokenParameters?: unknown }>;
    users: Record<string, { username: string; password: { env: string } }>;
  };
}
export interface Deviation {
  requirements: string[];
  verdict: 'FAIL' | 'WARN';
  clause: string;
  behaviour: string;
}
export interface RequirementVerdict {
  id: string;
  verdict: string;
  reason?: string;
  blockedBy?: string[];
  checks?: { title: string; verdict: string; blockedBy?: string[] }[];
}
export interface Report {
  requirements: RequirementVerdict[];
  target: { requestShaping?: { client: string; grant: string; parameters: Record<string, string> }[] };
}

/** Starts `startFile` (with `args`) and resolves with its listening line; `stop()` ends it (SIGTERM) and waits. */
export async function startTarget(
  startFile: string,
  args: readonly string[] = [],
): Promise<{ listening: Listening; stop(): Promise<void> }> {
  const target: ChildProcess = spawn(process.execPath, ['--import', 'tsx', startFile, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  target.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const stop = async () => {
    if (target.exitCode !== null || target.signalCode !== null) return;
    const exited = once(target, 'exit');
    target.kill('SIGTERM');
    await exited;
  };
  const listening = await new Promise<Listening>((resolve, reject) => {
    target.once('exit', (code) =>
      reject(new Error(`the target exited (code ${code}) before listening: ${stderr.join('').slice(-2000)}`)),
    );
    createInterface({ input: target.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return; // a library's own notices
      const parsed = JSON.parse(line) as { event?: string };
      if (parsed.event === 'listening') resolve(parsed as Listening);
    });
  });
  return { listening, stop };
}

/**
 * The committed profile (JSONC) with this start's addresses and CA, and the environment holding the
 * started secrets under the profile's variable names.
 */
export function startedProfile(
  profileFile: string,
  listening: Listening,
): { profile: Profile; env: NodeJS.ProcessEnv } {
  const profile = parseJsonc(readFileSync(profileFile, 'utf8')) as Profile;
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
  return { profile, env };
}

/** Runs `token-conformance run` with the profile (written into `work`) and reads conformance.json. */
export async function runSuite(
  work: string,
  name: string,
  profile: Profile,
  env: NodeJS.ProcessEnv,
): Promise<{ report: Report; code: number | null; reportFile: string }> {
  const profileFile = join(work, `${name}.json`);
  writeFileSync(profileFile, JSON.stringify(profile, null, 2));
  const reports = join(work, `reports-${name}`);
  const run = spawn(
    process.execPath,
    [join(root, 'bin', 'token-conformance.js'), 'run', '--target', profileFile, '--reports', reports],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  run.stdout.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  run.stderr.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  const [code] = (await once(run, 'exit')) as [number | null];
  assert.notEqual(code, 2, `the run stopped before any check (exit 2): ${output.join('').slice(-3000)}`);
  const reportFile = join(reports, 'conformance.json');
  return { report: JSON.parse(readFileSync(reportFile, 'utf8')) as Report, code, reportFile };
}

/** requirement ID → the verdict its listed deviation gives it. */
export function expectedVerdicts(deviations: Deviation[]): Map<string, string> {
  const expected = new Map<string, string>();
  for (const d of deviations) for (const id of d.requirements) expected.set(id, d.verdict);
  return expected;
}

/** The FAIL/WARN requirements that differ from `expected`, both ways, one line each (empty: pinned). */
export function pinDifferences(
  report: Report,
  expected: Map<string, string>,
): { unexpected: string[]; missing: string[] } {
  const oneLine = (text: string | undefined, max: number) => (text ?? '').replace(/\s+/g, ' ').slice(0, max);
  const actual = new Map(
    report.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN').map((r) => [r.id, r]),
  );
  const unexpected = [...actual.values()]
    .filter((r) => expected.get(r.id) !== r.verdict)
    .map(
      (r) =>
        `  ${r.id} ${r.verdict}${expected.has(r.id) ? ` (listed as ${expected.get(r.id)})` : ''}: ${oneLine(r.reason, 300)}`,
    );
  const missing = [...expected]
    .filter(([id]) => !actual.has(id))
    .map(([id, verdict]) => {
      const r = report.requirements.find((x) => x.id === id);
      return `  ${id} listed as ${verdict}, got ${r?.verdict ?? '(not in the report)'}${r?.reason ? `: ${oneLine(r.reason, 200)}` : ''}`;
    });
  return { unexpected: [...unexpected, ...unjudgedBlocks(report)], missing };
}

/**
 * BLOCKED check results whose named blockers none reads FAIL or WARN in the same report: the root
 * cause would FAIL nowhere (the suite's harness/reporter/unjudged-blocks.ts, restated: nothing here
 * imports the suite). Each is pinned as unexpected.
 */
export function unjudgedBlocks(report: Report): string[] {
  const verdictOf = new Map(report.requirements.map((r) => [r.id, r.verdict]));
  const judged = (id: string) => ['FAIL', 'WARN'].includes(verdictOf.get(id) ?? '');
  return report.requirements.flatMap((r) =>
    (r.checks ?? [])
      .filter((c) => c.verdict === 'BLOCKED' && (c.blockedBy ?? []).length > 0 && !c.blockedBy!.some(judged))
      .map(
        (c) =>
          `  ${r.id} BLOCKED by ${c.blockedBy!.map((id) => `${id} (${verdictOf.get(id) ?? 'absent'})`).join(', ')}, a blocker judged nowhere in this run: "${c.title}"`,
      ),
  );
}

/** Requirements per verdict, e.g. { PASS: 80, FAIL: 10, … }. */
export function verdictCounts(report: Report): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of report.requirements) counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
  return counts;
}
