// The command line of `npm run bench` (bench/bench.ts).
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { foreignTargets, type ForeignTargetName } from './harness/foreign-target.ts';

export interface BenchOptions {
  durationS: number;
  rounds: number;
  warmupS: number;
  connections: number;
  tokens: number;
  refreshes: number;
  /** Size (MiB) of the HAR file the audit row generates and audits (also a tenth of it, to compare peaks). */
  auditHarMiB: number;
  /** Also time the self-validation and the suite against a distant target (minutes). */
  suite: boolean;
  /**
   * One-way delays of the distant target's latency proxy, ms: the reference server's distant runs
   * use the first; the independent target without clock control runs at each.
   */
  delaysMs: number[];
  /** Skip timing `npm start`. */
  skipStart: boolean;
  /** Only the suite's timings (npm start, the self-validation, the distant target): no throughput rows, no memory. */
  suiteOnly: boolean;
  /** With --suite: do not time the self-validation. */
  skipSelfValidation: boolean;
  /** `--loop N`: only N suite runs in a row against one start of an independent target (no rows, no timings). */
  loop?: {
    runs: number;
    target: ForeignTargetName;
    /** The runs' own `run --deadline`, minutes. */
    deadlineMinutes: number;
    /** A run still going this many seconds after its start is killed as a hang. */
    hangAfterS: number;
  };
  /** Run only the throughput rows whose id contains one of these. */
  only: string[];
  out: string;
  help: boolean;
}

export const benchUsage = `Usage: npm run bench -- [options]
  --duration S      measured seconds per throughput row, all rounds together (default 12)
  --rounds N        rounds per row, interleaved with the other rows (default 3)
  --warmup S        warm-up seconds per row before its first round, not recorded (default 3)
  --connections N   concurrent connections of the load generator (default 16)
  --tokens N        client_credentials tokens before the second RSS reading (default 1000000)
  --refreshes N     refreshes of the refresh-heavy run (default 200000)
  --audit-har MIB   size of the HAR file generated for the audit row (default 100; a tenth of it is
                    audited too, so that the two peaks show memory bounded as the file grows)
  --quick           --duration 3 --rounds 1 --warmup 1 --tokens 50000 --refreshes 10000 --audit-har 10,
                    no npm start (a smoke run)
  --suite           also time the self-validation (npm run self-validate) and the suite against the
                    reference server behind a latency-adding loopback proxy (minutes)
  --delay MS[,MS]   the proxy's one-way delays (default 20,80): the reference server's distant runs
                    use the first, the independent target (oidc-provider) runs at each
  --skip-start      do not time npm start
  --suite-only      only the suite's timings: npm start, and with --suite the self-validation and
                    the distant target; no throughput rows, no memory (a few minutes, not ~10)
  --skip-self-validation   with --suite, do not time the self-validation
  --only a,b        only the throughput rows whose id contains a or b (no memory, no suite timings)
  --out FILE        where the results go (default bench/RESULTS.md; with --loop bench/LOOP-RESULTS.md)
  --loop N          only this: N suite runs in a row against one start of an independent target,
                    each checked for an end of its own, an exit code matching its verdict, whole
                    reports, the target's pinned FAIL/WARN, a stable request count and no process
                    left behind; writes its section of bench/LOOP-RESULTS.md (reports/bench/loop-NAME/)
  --target NAME     with --loop: oidc-provider (default) or jmondi-oauth2-server (jmondi)
  --deadline MIN    with --loop: the runs' own run --deadline in minutes (default 10)
  --hang-after S    with --loop: a run still going S seconds after its start is a hang: its stacks
                    are kept and it is killed, never retried (default: the deadline + 180 s)`;

export class BenchUsageError extends Error {}

export function parseBenchArgs(
  args: string[],
  defaultOut: string,
  defaultLoopOut = join(dirname(defaultOut), 'LOOP-RESULTS.md'),
): BenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      tokens: { type: 'string' },
      refreshes: { type: 'string' },
      'audit-har': { type: 'string' },
      quick: { type: 'boolean', default: false },
      suite: { type: 'boolean', default: false },
      delay: { type: 'string' },
      'skip-start': { type: 'boolean', default: false },
      'suite-only': { type: 'boolean', default: false },
      'skip-self-validation': { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string' },
      loop: { type: 'string' },
      target: { type: 'string' },
      deadline: { type: 'string' },
      'hang-after': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const quick = values.quick;
  if (values['suite-only'] && (quick || values.only !== undefined))
    throw new BenchUsageError('--suite-only runs no throughput row: it takes neither --quick nor --only');
  const number = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new BenchUsageError(`--${name} must be an integer from ${min} to ${max} (got '${raw}')`);
    return n;
  };
  const loopOnly = ['target', 'deadline', 'hang-after'] as const;
  if (values.loop === undefined && loopOnly.some((name) => values[name] !== undefined))
    throw new BenchUsageError('--target, --deadline and --hang-after go with --loop');
  let loop: BenchOptions['loop'];
  if (values.loop !== undefined) {
    if (values.suite || values['suite-only'] || quick || values.only !== undefined)
      throw new BenchUsageError('--loop runs the suite only: it takes none of --suite, --suite-only, --quick, --only');
    const target = values.target === 'jmondi' ? 'jmondi-oauth2-server' : (values.target ?? 'oidc-provider');
    if (!(foreignTargets as readonly string[]).includes(target))
      throw new BenchUsageError(`--target must be one of ${foreignTargets.join(', ')} (got '${values.target}')`);
    const deadline = Number(values.deadline ?? '10');
    if (!Number.isFinite(deadline) || deadline <= 0 || deadline > 600)
      throw new BenchUsageError(
        `--deadline must be minutes from 0 to 600, decimals allowed (got '${values.deadline}')`,
      );
    loop = {
      runs: number('loop', values.loop, 1, 1, 10_000),
      target: target as ForeignTargetName,
      deadlineMinutes: deadline,
      hangAfterS: number('hang-after', values['hang-after'], Math.ceil(deadline * 60) + 180, 1, 86_400),
    };
  }
  return {
    ...(loop && { loop }),
    durationS: number('duration', values.duration, quick ? 3 : 12, 1, 3600),
    rounds: number('rounds', values.rounds, quick ? 1 : 3, 1, 100),
    warmupS: number('warmup', values.warmup, quick ? 1 : 3, 0, 600),
    connections: number('connections', values.connections, 16, 1, 1024),
    tokens: number('tokens', values.tokens, quick ? 50_000 : 1_000_000, 1, 100_000_000),
    refreshes: number('refreshes', values.refreshes, quick ? 10_000 : 200_000, 1, 100_000_000),
    auditHarMiB: number('audit-har', values['audit-har'], quick ? 10 : 100, 1, 10_000),
    suite: values.suite,
    delaysMs: (values.delay ?? '20,80').split(',').map((d) => number('delay', d.trim(), 20, 1, 1000)),
    skipStart: values['skip-start'] || quick,
    suiteOnly: values['suite-only'],
    skipSelfValidation: values['skip-self-validation'],
    only:
      values.only === undefined
        ? []
        : values.only
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
    out: values.out ?? (loop ? defaultLoopOut : defaultOut),
    help: values.help,
  };
}
