// An independent target (test/targets/<name>/) started in a child process for the bench, which may
// not import test/targets/: test/targets/shared/serve-with-profile.ts writes the committed profile
// with this start's addresses and prints the started secrets on one line through the pipe. Also
// what the target's pinned deviations.json says its FAIL/WARN requirements are, and a report's
// differences from them, both ways.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const foreignTargets = ['oidc-provider', 'jmondi-oauth2-server'] as const;
export type ForeignTargetName = (typeof foreignTargets)[number];

export interface StartedForeignTarget {
  profileFile: string;
  /** The started secrets under the profile's variable names, for the run's environment. */
  env: Record<string, string>;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the target; `dir` receives its profile.json. Rejects with its stderr's end when it exits before it is ready. */
export async function startForeignTarget(
  root: string,
  name: ForeignTargetName,
  dir: string,
  args: readonly string[] = [],
): Promise<StartedForeignTarget> {
  const target = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'test', 'targets', 'shared', 'serve-with-profile.ts'), name, dir, ...args],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stderr: string[] = [];
  target.stderr.setEncoding('utf8').on('data', (c: string) => stderr.push(c));
  const stop = async (): Promise<void> => {
    if (target.exitCode !== null || target.signalCode !== null) return;
    const exited = once(target, 'exit');
    target.kill('SIGTERM');
    await exited;
  };
  try {
    const ready = await new Promise<{ profileFile: string; env: Record<string, string> }>((resolve, reject) => {
      target.once('exit', (code) =>
        reject(
          new Error(`the ${name} target exited (code ${code}) before it was ready: ${stderr.join('').slice(-1000)}`),
        ),
      );
      createInterface({ input: target.stdout }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        const parsed = JSON.parse(line) as { event?: string; profileFile: string; env: Record<string, string> };
        if (parsed.event === 'ready') resolve(parsed);
      });
    });
    return { profileFile: ready.profileFile, env: ready.env, process: target, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface PinnedDeviation {
  requirements: string[];
  verdict: string;
}
interface DeviationsFile {
  deviations: PinnedDeviation[];
  /** A deployment rule the committed profile declares; its requirements are pinned as well. */
  rule?: PinnedDeviation;
  /** Verdicts the suite still gets wrong on the target, per run; the committed profile is the 'declared' run. */
  suiteErrors?: (PinnedDeviation & { run: string })[];
}

/** The FAIL/WARN requirements a run with the target's committed profile must give: requirement → verdict. */
export function pinnedVerdicts(root: string, name: ForeignTargetName): Map<string, string> {
  const file = JSON.parse(
    readFileSync(join(root, 'test', 'targets', name, 'deviations.json'), 'utf8'),
  ) as DeviationsFile;
  const judged = [
    ...(file.rule ? [file.rule] : []),
    ...file.deviations,
    ...(file.suiteErrors ?? []).filter((e) => e.run === 'declared'),
  ].filter((d) => d.verdict === 'FAIL' || d.verdict === 'WARN');
  return new Map(judged.flatMap((d) => d.requirements.map((id) => [id, d.verdict] as const)));
}

export interface PinDifferences {
  same: boolean;
  unexpected: string[];
  missing: string[];
}

/** A report's FAIL/WARN requirements against the pinned ones, both ways. */
export function pinDifferencesOf(
  expected: ReadonlyMap<string, string>,
  requirements: readonly { id: string; verdict: string }[],
): PinDifferences {
  const actual = new Map(
    requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN').map((r) => [r.id, r.verdict]),
  );
  const unexpected = [...actual].filter(([id, v]) => expected.get(id) !== v).map(([id, v]) => `${id} ${v}`);
  const missing = [...expected].filter(([id, v]) => actual.get(id) !== v).map(([id, v]) => `${id} ${v}`);
  return { same: unexpected.length === 0 && missing.length === 0, unexpected, missing };
}
