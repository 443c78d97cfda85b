// The run manifest: every non-secret setting a run hands from the process that starts Playwright
// (`run`, the self-validation, or the global setup of a direct `npx playwright test`) to the
// Playwright config, its workers and its reporters. One typed JSON file in the run's private
// directory, named by one environment variable; secrets never go in it (they stay in the
// environment: redaction/redact.ts secretsFromEnv, the worker profile's `{ "env": NAME }` references).
// Written once, before Playwright starts, and only read afterwards: a reader never writes
// process.env to tell another reader something.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** The one environment variable of a run: the manifest's path. */
export const runManifestEnvVar = 'TOKEN_CONFORMANCE_RUN';

export const runManifestSchema = z
  .object({
    /** The worker profile (core/profile/worker-profile.ts): the resolved target, secrets as environment references. */
    profile: z.string().optional(),
    /** Where the reporters write (default: reports/ beside playwright.config.ts). */
    reportsDir: z.string().optional(),
    /** Playwright's terminal reporter (`run --reporter`: line, null, list or dot). */
    terminalReporter: z.string().optional(),
    /** The `--level` selection the report states. */
    level: z.enum(['must', 'should', 'all']).default('all'),
    /** WARN exits 1 too. */
    strict: z.boolean().default(false),
    /** The user's --grep (the report states it). */
    grep: z.string().optional(),
    /** The selection left checks out (--grep, --spec, a direct run of some files): unselected requirements read SKIP, not UNCHECKED. */
    filtered: z.boolean().default(false),
    /** I/N: this run is one shard. */
    shard: z.string().optional(),
    /** The run's seen-tokens file: every token a check saw, one a line, so that every writer redacts it. */
    seenTokens: z.string().optional(),
    /** The region-parity section `run` measured before the checks (harness/parity/). */
    regionParity: z.string().optional(),
    /** SHA-256 of the profile file, literal secrets excluded (harness/bundle/bundle.ts profileSha256). */
    profileSha256: z.string().optional(),
    /** `run` verifies the reports once after Playwright ended, so the reporter does not. */
    verifiedByRun: z.boolean().default(false),
    /** A check that failed keeps its Playwright worker (fixtures/worker-reuse.fixture.ts): `run`, unless it counts failures (--max-failures). */
    keepWorkerAfterFailedCheck: z.boolean().default(false),
    /** The reporter prints no summary. */
    quiet: z.boolean().default(false),
    /** checks.json of an earlier pass whose outcomes this pass's report includes. */
    mergeChecks: z.string().optional(),
    /** The directory of the clients the target refused or locked out (client-locks.ts). */
    clientLocks: z.string().optional(),
    /** The clock targets' file (clock-targets.ts). */
    clockTargets: z.string().optional(),
    /** The pass gate's file (pass-gate.ts): written once every conformance check ended. */
    passGate: z.string().optional(),
    /** The obligations' hand-over directory (core/obligations/run-exchange.ts); its key is a secret and stays in the environment. */
    obligationsDir: z.string().optional(),
    /** The property checks' seed (default: a fixed seed per property). */
    seed: z.number().int().optional(),
    /** A fast-check path (with the seed): replay one counterexample without searching again. */
    replayPath: z.string().optional(),
    /** The `run` arguments that select the same target again, for a property failure's replay command. */
    replayArgs: z.string().optional(),
    /** The self-validation's batch plan (self-validation/batch-plan.ts). */
    selfValidationBatch: z.string().optional(),
    /** The round trip `run` measured to the target (ms; harness/reference/round-trip.ts): what `run` chose its workers from (check-workers.ts). */
    roundTripMs: z.number().nonnegative().optional(),
    /** The conformance project's workers `run` chose (check-workers.ts); absent: the config's. */
    checkWorkers: z.number().int().positive().optional(),
    /** The lanes' lock directory (serial-lanes.ts): the time-travel checks run in lanes, one worker each. */
    serialLanes: z.string().optional(),
    /** With serialLanes: the lanes of a principal of their own run beside the conformance checks (serial-lanes.ts lanesBesideConformance). */
    serialLanesBeside: z.boolean().optional(),
    /** `run --allure`: the allure-playwright reporter writes allure-results/ too. */
    allure: z.boolean().default(false),
    /** `run --deadline`: the run's overall deadline in minutes; a check it stops reads UNCHECKED naming it. */
    deadlineMinutes: z.number().positive().optional(),
  })
  .strict();

export type RunManifest = z.infer<typeof runManifestSchema>;
export type RunManifestInput = z.input<typeof runManifestSchema>;

export class RunManifestError extends Error {}

/** Writes the manifest (validated) into the run's private directory; returns the environment that names it. */
export function writeRunManifest(
  dir: string,
  manifest: RunManifestInput,
  name = 'run-manifest.json',
): Record<typeof runManifestEnvVar, string> {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(runManifestSchema.parse(manifest), null, 2)}\n`, { mode: 0o600 });
  return { [runManifestEnvVar]: file };
}

/** The manifest this process was started with; the defaults when none is named (a direct Playwright run without the global setup). */
export function readRunManifest(env: NodeJS.ProcessEnv = process.env): RunManifest {
  const file = env[runManifestEnvVar];
  if (!file) return runManifestSchema.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new RunManifestError(
      `${runManifestEnvVar} names ${file}, which cannot be read as JSON: ${(error as Error).message}`,
    );
  }
  const parsed = runManifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new RunManifestError(
      `${file} is not a run manifest: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}`,
    );
  }
  return parsed.data;
}
