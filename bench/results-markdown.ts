// bench/RESULTS.md from one run: the throughput table, the ratios against the goals, memory, the
// suite timings, the machine (and its load before and after), the versions and how to re-run.
// Only measured figures appear; a row with errors shows its errors, never a speed, and a ratio
// that needs it says so.
import type { MachineInfo } from './harness/machine.ts';
import { extraTimes, parsePhases, projectSums, slowestChecks } from './harness/suite-breakdown.ts';
import type { CheckCost, SequentialChain, SuiteRun } from './harness/suite-runs.ts';
import type { LoadResult } from './load/load-generator.ts';
import type { RowResult } from './load/rounds.ts';
import type { MemoryResult } from './memory.ts';
import type { AuditHarResult } from './audit-har.ts';
import { foreignGoalLines, pushForeign, type ForeignResult } from './foreign-results.ts';
import { TAIL_CONNECTIONS, type RowKind } from './scenarios.ts';

export interface ThroughputRow {
  id: string;
  label: string;
  kind: RowKind;
  result?: RowResult;
  /** Why the row has no result (the target did not start, a setup request failed). */
  failure?: string;
}

export interface BenchRun {
  startedAt: Date;
  finishedAt: Date;
  command: string;
  machine: MachineInfo;
  loadStart: string;
  loadEnd: string;
  pinned: boolean;
  durationS: number;
  rounds: number;
  warmupS: number;
  connections: number;
  versions: Record<string, string>;
  rows: ThroughputRow[];
  memory?: MemoryResult | { failure: string };
  /** `token-conformance audit` of generated HAR files, a tenth of the size and the full size. */
  auditHar?: AuditHarResult[] | { failure: string };
  /** npm start (with its reports read back) and the self-validation. */
  timings: SuiteRun[];
  /** The suite against the reference server behind the latency proxy, with the target's one clock (--suite). */
  distant?: DistantResult;
  /** The same with clock sandboxes behind the proxy too: npm start's topology (its clock servers), like with like. */
  distantClocks?: DistantResult;
  /** The suite against an independent target without clock control, locally and behind the latency proxy (--suite). */
  foreign?: ForeignResult[];
}

export interface DistantResult {
  delayMs: number;
  /** Clock sandboxes the distant profile declared (npm start's clock servers); 0 or absent: the target's one clock. */
  clocks?: number;
  run?: SuiteRun & { proxyConnections: number };
  /** Longest sequential chain of round trips of any check (from the local and the distant run). */
  chain?: SequentialChain | undefined;
  failure?: string;
}

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';

/** The clean throughput of a row, or undefined when it has none (missing, failed or with errors). */
export function cleanThroughput(row: ThroughputRow | undefined): number | undefined {
  if (!row?.result || row.result.errors > 0 || row.result.requests === 0) return undefined;
  return row.result.throughput;
}

export interface GoalLine {
  goal: string;
  measured: string;
  met: boolean | undefined;
}

/** A row's p99 over its ceiling's, both from this run (each the median of its rounds' p99). */
function tailLatency(
  ours: ThroughputRow | undefined,
  ceiling: ThroughputRow | undefined,
  wanted: number,
  goal: string,
): GoalLine {
  if (cleanThroughput(ours) === undefined || cleanThroughput(ceiling) === undefined)
    return { goal, measured: 'not measured (a row is missing or had errors)', met: undefined };
  const a = ours!.result!;
  const b = ceiling!.result!;
  const r = a.p99 / b.p99;
  return {
    goal,
    measured: `${fmt(r, 2)}× (p99 ${fmt(a.p99, 2)} vs ${fmt(b.p99, 2)} ms; p50 ${fmt(a.p50, 2)} vs ${fmt(b.p50, 2)} ms; rounds' p99 ${a.roundP99s.map((p) => fmt(p, 1)).join(', ')} vs ${b.roundP99s.map((p) => fmt(p, 1)).join(', ')} ms)`,
    met: r <= wanted,
  };
}

export function goalLines(run: BenchRun): GoalLine[] {
  const row = (id: string) => run.rows.find((r) => r.id === id);
  const ratio = (a: string, b: string | string[], wanted: number, goal: string): GoalLine => {
    const ours = cleanThroughput(row(a));
    const others = (Array.isArray(b) ? b : [b]).map((id) => ({ id, value: cleanThroughput(row(id)) }));
    const usable = others.filter((o) => o.value !== undefined) as { id: string; value: number }[];
    const best = usable.sort((x, y) => y.value - x.value)[0];
    if (ours === undefined || best === undefined || usable.length < others.length) {
      return { goal, measured: 'not measured (a row is missing or had errors)', met: undefined };
    }
    const r = ours / best.value;
    // The same comparison by server CPU time per answer (robust when the load generator is the limit).
    const cpuRatio = row(best.id)!.result!.cpuMicrosPerRequest / row(a)!.result!.cpuMicrosPerRequest;
    return {
      goal,
      measured: `${fmt(r, 2)}× (${fmt(ours)} vs ${fmt(best.value)} req/s, ${best.id}); by server CPU per answer ${fmt(cpuRatio, 2)}×`,
      met: r >= wanted,
    };
  };
  const lines = [
    ratio(
      'ref-cc-us',
      ['peer-oidc-provider', 'peer-oauth2-server'],
      2,
      'token issuance (client_credentials US) ≥ 2× the best peer',
    ),
    ratio('ref-cc-us', 'ceiling-jose-sign', 0.9, 'token issuance ≥ 0.9× the bare jose signing ceiling'),
    ratio(
      'ref-cc-us-tail',
      'ceiling-jose-sign-tail',
      0.9,
      `token issuance ≥ 0.9× the bare jose signing ceiling, ${TAIL_CONNECTIONS} connections`,
    ),
    tailLatency(
      row('ref-cc-us-tail'),
      row('ceiling-jose-sign-tail'),
      3,
      `client_credentials p99 ≤ 3× the bare jose signing ceiling's p99, ${TAIL_CONNECTIONS} connections`,
    ),
    ratio('ref-protected', 'ceiling-jose-verify', 3, 'protected calls ≥ 3× the bare jose verification ceiling'),
  ];
  const memory = run.memory && !('failure' in run.memory) ? run.memory : undefined;
  lines.push(
    memory
      ? {
          goal: `RSS after ${fmt(memory.tokenRun.requests)} tokens < 200 MiB (suite environment / plain \`serve\`)`,
          measured: `${fmt(memory.afterTokensRssMiB, 1)} / ${fmt(memory.afterTokensRssPlainEnvMiB, 1)} MiB`,
          met:
            memory.tokenRun.errors === 0 &&
            memory.plainTokenRun.errors === 0 &&
            Math.max(memory.afterTokensRssMiB, memory.afterTokensRssPlainEnvMiB) < 200,
        }
      : { goal: 'RSS after 1 million tokens < 200 MiB', measured: 'not measured', met: undefined },
  );
  const start = run.timings.find((t) => t.command.includes('--start-reference'));
  const wall = (t: SuiteRun | undefined, limit: number, goal: string): GoalLine =>
    t
      ? {
          goal,
          measured: `${fmt(t.seconds, 1)} s (exit ${t.exitCode}${t.verdicts ? `; ${t.verdicts}` : ''})`,
          met: t.exitCode === 0 && t.seconds <= limit,
        }
      : { goal, measured: 'not measured', met: undefined };
  lines.push(wall(start, 10, '`npm start` wall ≤ 10 s'));
  lines.push(
    wall(
      run.timings.find((t) => t.command.includes('self-validate')),
      30,
      'self-validation wall ≤ 30 s',
    ),
  );
  // Like with like first: the distant target with clock sandboxes, as npm start has its clock
  // servers; then the target's one clock, reported with its floor (the time-travel checks in a row).
  for (const d of [run.distantClocks, run.distant])
    if (d) lines.push(distantGoalLine(d, start, run.distantClocks !== undefined));
  if (!run.distant && !run.distantClocks)
    lines.push({
      goal: 'suite against a target 20 ms away ≤ 2 × the local wall time',
      measured: 'not measured',
      met: undefined,
    });
  lines.push(...foreignGoalLines(run.foreign, start));
  return lines;
}

/** Which distant run a goal line is about: with clock sandboxes, or the target's one clock. */
function distantTopology(d: DistantResult): string {
  return (d.clocks ?? 0) > 0
    ? `with ${d.clocks} clock sandboxes, like \`npm start\`'s ${d.clocks} clock servers`
    : "with the target's one clock";
}

function distantGoalLine(d: DistantResult, start: SuiteRun | undefined, both: boolean): GoalLine {
  // One row alone (an older version, no clock sandboxes) keeps the goal's plain wording.
  const goal = `suite against a target ${d.delayMs} ms away ≤ 2 × the local wall time${both ? ` (${distantTopology(d)})` : ''}`;
  const r = d.run;
  if (!r || !start) return { goal, measured: d.failure ? `failed: ${d.failure}` : 'not measured', met: undefined };
  const serial = (d.clocks ?? 0) > 0 ? undefined : projectSums(r.checks).find((p) => p.project === 'time-travel');
  return {
    goal,
    measured: `${fmt(r.seconds / start.seconds, 2)}× (${fmt(r.seconds, 1)} s vs ${fmt(start.seconds, 1)} s; exit ${r.exitCode}${r.verdicts ? `; ${r.verdicts}` : ''}${both && serial ? `; floor: its ${fmt(serial.checks)} time-travel checks one after another, ${fmt(serial.seconds, 1)} s` : ''})`,
    met: r.exitCode === 0 && r.seconds <= 2 * start.seconds,
  };
}

function pushDistant(push: (...lines: string[]) => void, d: DistantResult, local: SuiteRun | undefined): void {
  const clocks = d.clocks ?? 0;
  push(
    '',
    `### Against a distant target (${d.delayMs} ms each way, ${clocks > 0 ? `${clocks} clock sandboxes` : 'one clock'})`,
    '',
  );
  push(
    `The reference server (the same two servers \`--start-reference\` starts${clocks > 0 ? `, and its ${clocks} clock servers, each behind a proxy of its own and declared as the profile's \`capabilities.clockSandboxes\`: the topology of \`npm start\`` : ''}) behind a loopback TCP proxy that holds every chunk ${d.delayMs} ms in each direction (a ${2 * d.delayMs} ms round trip; a new connection also waits one round trip for its TCP handshake; TLS passes through), run as a user runs against a staging target: \`token-conformance run --target <profile of the proxied addresses>\` (bench/harness/suite-runs.ts, latency-proxy.ts). Wall time of that command alone (the servers were already up).`,
    '',
  );
  if (!d.run) {
    push(`**Failed**: ${d.failure ?? 'no result'}`);
    return;
  }
  const r = d.run;
  push(
    '| measurement | value |',
    '|---|---:|',
    `| wall time | ${fmt(r.seconds, 1)} s (exit ${r.exitCode}) |`,
    ...(r.cpuSeconds !== undefined
      ? [`| CPU time of the \`run\` command (the servers and the proxy not included) | ${fmt(r.cpuSeconds, 1)} s |`]
      : []),
    ...(local ? [`| … over the local \`npm start\` | ${fmt(r.seconds / local.seconds, 2)}× |`] : []),
    `| requests the checks sent | ${r.requests === undefined ? '–' : fmt(r.requests)} |`,
    `| connections through the proxy | ${fmt(r.proxyConnections)} |`,
    `| requirements | ${r.verdicts ?? '–'} |`,
  );
  const timedOut = r.checks.filter((c) => c.status === 'timedOut');
  if (timedOut.length > 0) {
    push(
      '',
      `Checks that ran out of time against the distant target: ${timedOut.map((c) => `${c.key} (${fmt(c.requests)} requests in ${fmt(c.durationMs / 1000, 1)} s)`).join('; ')}.`,
    );
  }
  const localPhases = parsePhases(local?.phases);
  const distantPhases = parsePhases(r.phases);
  if (distantPhases) {
    const names = [...new Set([...(localPhases?.phases ?? []), ...distantPhases.phases].map((p) => p.phase))];
    const of = (p: ReturnType<typeof parsePhases>, name: string) =>
      p?.phases.filter((x) => x.phase === name).reduce((n, x) => n + x.seconds, 0);
    push(
      '',
      'The phases of both runs (`run --timings`):',
      '',
      '| phase | local `npm start` | distant |',
      '|---|---:|---:|',
    );
    for (const name of names)
      push(`| ${name} | ${secondsCell(of(localPhases, name))} | ${secondsCell(of(distantPhases, name))} |`);
    push(`| total | ${secondsCell(localPhases?.totalSeconds)} | ${secondsCell(distantPhases.totalSeconds)} |`);
  }
  if (local && local.checks.length > 0 && r.checks.length > 0) {
    const localSums = new Map(projectSums(local.checks).map((p) => [p.project, p]));
    push(
      '',
      `Where the extra time goes: each check's duration in both runs (checks.json). ${clocks > 0 ? `With ${clocks} clock sandboxes the time-travel checks run on ${clocks} workers beside the other checks, as locally on the clock servers.` : "Against one target the time-travel checks share its one clock, so they run one after the other on one worker after the other checks: their sum is that pass's wall time. Locally they run on clock servers of their own beside the other checks."}`,
      '',
      '| project | checks | summed duration, local | summed duration, distant | requests, distant |',
      '|---|---:|---:|---:|---:|',
    );
    for (const p of projectSums(r.checks))
      push(
        `| ${p.project} | ${fmt(p.checks)} | ${secondsCell(localSums.get(p.project)?.seconds)} | ${secondsCell(p.seconds)} | ${fmt(p.requests)} |`,
      );
    const extra = extraTimes(local.checks, r.checks, d.delayMs).slice(0, 10);
    push(
      '',
      `The ${extra.length} checks with the most extra time (round trips: the extra time over the ${2 * d.delayMs} ms a round trip adds):`,
      '',
      '| check | local | distant | extra | round trips | requests |',
      '|---|---:|---:|---:|---:|---:|',
    );
    for (const e of extra)
      push(
        `| ${e.check.key} | ${secondsCell(e.localMs / 1000)} | ${secondsCell(e.check.durationMs / 1000)} | ${secondsCell(e.extraMs / 1000)} | ${fmt(e.roundTrips)} | ${fmt(e.check.requests)} |`,
      );
  }
  const c = d.chain;
  if (c) {
    const cut = r.checks.find((x) => x.key === c.check)?.status === 'timedOut';
    push(
      '',
      `Longest sequential chain of any check: **${cut ? 'at least ' : ''}${fmt(c.roundTrips)} round trips**, ${c.check} (${fmt(c.requests)} requests${cut ? '; it ran out of time, so the chain is longer' : ''}). Method: a round trip through the proxy costs ${2 * d.delayMs} ms more than on loopback, so a check's extra time in the distant run over its time in the local \`npm start\` (checks.json of both runs), divided by ${2 * d.delayMs} ms, is the number of round trips on its sequential path — requests, plus the handshakes of new connections; requests sent side by side count once. The most requests of one check: ${fmt(c.mostRequests.requests)} (${c.mostRequests.check}).`,
    );
  }
}

/**
 * Which goals this run met, and for the suite's goals it missed what its own figures say stands in
 * the way: the largest phase and the longest check of `npm start`; for the distant target the
 * time-travel checks that run one after another on its one clock, and the longest chain.
 */
export function closingNote(run: BenchRun): string[] {
  const lines = goalLines(run);
  const met = lines.filter((l) => l.met === true).map((l) => l.goal);
  const missed = lines.filter((l) => l.met === false);
  const unmeasured = lines.filter((l) => l.met === undefined).map((l) => l.goal);
  const out = [
    `Met: ${met.length > 0 ? met.join('; ') : 'none'}.`,
    ...(unmeasured.length > 0 ? [`Not measured in this run: ${unmeasured.join('; ')}.`] : []),
  ];
  const start = run.timings.find((t) => t.command.includes('--start-reference'));
  for (const l of missed) {
    let why = '';
    if (l.goal.startsWith('`npm start`') && start) {
      const biggest = parsePhases(start.phases)
        ?.phases.slice()
        .sort((a, b) => b.seconds - a.seconds)[0];
      const longest = slowestChecks(start.checks, 1)[0];
      why = [
        cpuBound(start, 10, run.machine.cpuCount, 'bench/SUITE-TIMING.md, Session 7'),
        biggest ? `its largest phase is ${biggest.phase} (${fmt(biggest.seconds, 1)} s)` : '',
        longest
          ? `its longest check ${checkTitle(longest)} (${fmt(longest.durationMs / 1000, 1)} s, ${fmt(longest.requests)} requests) is a floor of that phase`
          : '',
      ]
        .filter((x) => x !== '')
        .join('; ');
    } else if (l.goal.startsWith('self-validation')) {
      const selfValidation = run.timings.find((t) => t.command.includes('self-validate'));
      if (selfValidation)
        why = cpuBound(selfValidation, 30, run.machine.cpuCount, 'self-validation/README.md, "Run time"');
    } else if (l.goal.includes('ms away') && !l.goal.includes('against it') && distantOfLine(run, l)?.run) {
      const d = distantOfLine(run, l)!;
      const clocks = d.clocks ?? 0;
      const serial = projectSums(d.run!.checks).find((p) => p.project === 'time-travel');
      const c = d.chain;
      why = [
        serial && clocks === 0
          ? `against one clock the ${fmt(serial.checks)} time-travel checks run one after another: ${fmt(serial.seconds, 1)} s summed, a floor of the run`
          : '',
        serial && clocks > 0
          ? `the ${fmt(serial.checks)} time-travel checks (${fmt(serial.seconds, 1)} s summed) share ${clocks} clock sandboxes`
          : '',
        c
          ? `the longest chain, ${fmt(c.roundTrips)} round trips × ${2 * d.delayMs} ms ≈ ${fmt((c.roundTrips * 2 * d.delayMs) / 1000, 1)} s, is ${c.check}`
          : '',
      ]
        .filter((x) => x !== '')
        .join('; ');
    }
    const far = /against it (\d+) ms away/.exec(l.goal);
    const foreignRun = far ? run.foreign?.find((f) => f.delayMs === Number(far[1]))?.run : undefined;
    if (foreignRun?.projects) why = `where its time went: ${foreignRun.projects.replace(/^projects: /, '')}`;
    out.push(`Not met: ${l.goal} — ${l.measured}${why ? `; ${why}` : ''}.`);
  }
  return out;
}

/**
 * The floor the command's own CPU time puts under its wall time on this machine: however well it
 * spreads over the cores, it cannot end sooner than its CPU-s over their number. Said only when
 * that floor alone misses the goal (the command is CPU-bound, not waiting); `profile` names where
 * the CPU goes.
 */
function cpuBound(t: SuiteRun, limitS: number, cores: number, profile: string): string {
  if (t.cpuSeconds === undefined || !Number.isFinite(t.cpuSeconds) || cores < 1) return '';
  const floor = t.cpuSeconds / cores;
  if (floor <= limitS) return '';
  return `it used ${fmt(t.cpuSeconds, 1)} CPU-s, so on ${cores} cores it cannot end in under ${fmt(floor, 1)} s even spread perfectly: ${limitS} s needs at most ${fmt(limitS * cores)} CPU-s (where they go: ${profile})`;
}

/** The distant run a goal line of goalLines is about. */
function distantOfLine(run: BenchRun, line: GoalLine): DistantResult | undefined {
  if (run.distantClocks && line.goal.includes('clock sandboxes')) return run.distantClocks;
  return run.distant;
}

function pushClosingNote(push: (...lines: string[]) => void, run: BenchRun): void {
  push('', '## Closing note', '', ...closingNote(run).flatMap((line) => [`- ${line}`]));
}

const secondsCell = (seconds: number | undefined): string => (seconds === undefined ? '–' : `${fmt(seconds, 1)} s`);

/** Where one `npm start`'s time went: its phases, and its checks per project and the slowest of them. */
function pushStartBreakdown(push: (...lines: string[]) => void, start: SuiteRun): void {
  const phases = parsePhases(start.phases);
  if (!phases) {
    push(
      '',
      start.phases !== undefined
        ? `Where \`npm start\`'s time went (\`run --timings\`): ${start.phases}.`
        : "Where `npm start`'s time goes: this version's `run` has no `--timings` (the phase breakdown of issue 18), so none is given here.",
    );
    return;
  }
  push(
    '',
    "### Where one `npm start`'s time goes",
    '',
    `Its phases, one after the other (\`run --timings\`; the total is the \`run\` command's, without npm's own start-up)${start.cpuSeconds !== undefined ? `; the whole run used ${fmt(start.cpuSeconds, 1)} CPU-s (user + system of every process under it, servers and Playwright's workers included; ${fmt(start.cpuSeconds / start.seconds, 2)} CPUs on average)` : ''}:`,
    '',
    '| phase | wall time | share |',
    '|---|---:|---:|',
  );
  for (const p of phases.phases)
    push(`| ${p.phase} | ${secondsCell(p.seconds)} | ${fmt((100 * p.seconds) / phases.totalSeconds)}% |`);
  push(`| total | ${secondsCell(phases.totalSeconds)} | |`);
  if (start.checks.length === 0) return;
  push(
    '',
    "The checks phase per Playwright project (checks.json): the checks' durations added up, more than the phase's wall time since they run side by side (the time-travel checks on clock servers of their own).",
    '',
    '| project | checks | summed duration | requests | longest check |',
    '|---|---:|---:|---:|---|',
  );
  for (const p of projectSums(start.checks))
    push(
      `| ${p.project} | ${fmt(p.checks)} | ${secondsCell(p.seconds)} | ${fmt(p.requests)} | ${p.longest ? `${checkTitle(p.longest)} (${secondsCell(p.longest.durationMs / 1000)})` : '–'} |`,
    );
  push('', 'The slowest checks:', '', '| check | project | duration | requests |', '|---|---|---:|---:|');
  for (const c of slowestChecks(start.checks, 8))
    push(`| ${checkTitle(c)} | ${c.project} | ${secondsCell(c.durationMs / 1000)} | ${fmt(c.requests)} |`);
}

/** A check's title without its project (the table has a column for it). */
const checkTitle = (c: CheckCost): string =>
  c.key.startsWith(`${c.project} › `) ? c.key.slice(c.project.length + 3) : c.key;

function throughputCell(result: RowResult): string {
  if (result.errors > 0) return `**${fmt(result.errors)} errors** of ${fmt(result.requests)}`;
  return fmt(result.throughput);
}

export function renderResults(run: BenchRun): string {
  const out: string[] = [];
  const push = (...lines: string[]) => out.push(...lines);
  push(
    '# Benchmark results',
    '',
    `Written by \`${run.command}\` on ${run.startedAt.toISOString()} (finished ${run.finishedAt.toISOString()}). Do not edit by hand: re-run instead.`,
    '',
    `Machine: ${run.machine.cpuCount} × ${run.machine.cpuModel}, Node ${run.machine.node}, nice ${run.machine.niceness}. ` +
      `Load average (1/5/15 min) at start ${run.loadStart}, at end ${run.loadEnd}. ` +
      (run.pinned
        ? 'Servers pinned to CPU 0, the load generator to CPU 1 (taskset).'
        : '**Not pinned** (no taskset or one CPU): servers and load generator share the CPUs.'),
    '',
    'Absolute figures drift with the machine and its load (this one may be shared); the ratios, all taken in this one run, are the figures to compare.',
    '',
    '## Throughput and latency',
    '',
    `Closed loop: ${run.connections} keep-alive connections (undici Pool), each sending its next request when the previous answer is read; ${run.warmupS} s warm-up (not recorded) before a row's first round, then ${run.durationS} s measured per row in ${run.rounds} round(s) of ${fmt(run.durationS / run.rounds, 1)} s, interleaved with the other rows (round 1 of every row, then round 2, …) so that a change in the machine's load hits every row alike. req/s, p50 and p99 are the medians of the rounds. Loopback, plain HTTP. Every answer is checked (status, JSON shape, a compact JWS signed with EdDSA, or the person asked for); a row with errors reports its errors instead of a speed. So that the fast rows measure the server rather than the load generator, the generator reads each answer with a lean undici dispatch handler (status, Content-Type and body only) and accepts a person answer that is byte for byte the last one it checked in full once its status and media type are checked (the same bytes are the same JSON): exactly the answers the full check accepts.`,
    '',
    '"server CPU µs/answer" is the server process\'s CPU time (user + system, all threads, from /proc) over the measured phases divided by the answers: a cost that holds even when the load generator or other processes on the machine, not the server, limit the rate. "server CPU" is that time over the wall time (100% = one full CPU); "load generator CPU" the same for the load generator\'s process (on its own CPU when pinned): near 100% it, not the server, limits the row.',
    '',
    '| row | req/s | p50 ms | p99 ms | server CPU µs/answer | server CPU | load generator CPU | answers | req/s per round |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  if (run.rows.length === 0) push('| no throughput row in this run (`--suite-only`) | | | | | | | |');
  for (const row of run.rows) {
    if (!row.result) {
      push(`| ${row.label} | **failed**: ${row.failure ?? 'no result'} | | | | | | | |`);
      continue;
    }
    const r = row.result;
    push(
      `| ${row.label} | ${throughputCell(r)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuMicrosPerRequest)} | ${fmt(r.cpuShare * 100)}% | ${Number.isNaN(r.loadCpuShare) ? '–' : `${fmt(r.loadCpuShare * 100)}%`} | ${fmt(r.requests)} | ${r.errors > 0 ? '–' : r.roundThroughputs.map((t) => fmt(t)).join(', ')} |`,
    );
  }
  const failing = run.rows.filter((r) => r.result && r.result.errors > 0);
  if (failing.length > 0) {
    push('', 'Errors seen:', '');
    for (const row of failing) for (const sample of row.result!.errorSamples) push(`- ${row.id}: ${sample}`);
  }

  push('', '## Goals', '', '| goal | measured | met |', '|---|---|---|');
  for (const line of goalLines(run))
    push(`| ${line.goal} | ${line.measured} | ${line.met === undefined ? '–' : line.met ? 'yes' : '**no**'} |`);

  push('', '## Memory and store', '');
  if (!run.memory) push('Not measured in this run (`--only` or `--suite-only`).');
  else if ('failure' in run.memory) push(`**Failed**: ${run.memory.failure}`);
  else {
    const m = run.memory;
    const runNote = (r: LoadResult) =>
      r.errors > 0 ? ` — **${fmt(r.errors)} errors** (${r.errorSamples.join('; ')})` : '';
    push(
      'One fresh reference server (store file in a temporary directory), logs at `warn`, started with the environment the suite gives it (`MALLOC_MMAP_THRESHOLD_=131072`, see harness/reference/server-env.ts); the second line is a server started without it.',
      '',
      '| measurement | value |',
      '|---|---:|',
      `| RSS idle (2 s after start) | ${fmt(m.idleRssMiB, 1)} MiB |`,
      `| RSS idle, started without \`MALLOC_MMAP_THRESHOLD_\` | ${fmt(m.idleRssPlainEnvMiB, 1)} MiB |`,
      `| RSS after ${fmt(m.plainTokenRun.requests)} client_credentials tokens, started without \`MALLOC_MMAP_THRESHOLD_\` (${fmt(m.plainTokenRun.throughput)} req/s${runNote(m.plainTokenRun)}) | ${fmt(m.afterTokensRssPlainEnvMiB, 1)} MiB |`,
      `| RSS after ${fmt(m.tokenRun.requests)} client_credentials tokens (${fmt(m.tokenRun.throughput)} req/s${runNote(m.tokenRun)}) | ${fmt(m.afterTokensRssMiB, 1)} MiB |`,
      `| RSS after a refresh-heavy run: ${fmt(m.refreshRun.requests)} refreshes (${fmt(m.refreshRun.throughput)} req/s${runNote(m.refreshRun)}) | ${fmt(m.afterRefreshRssMiB, 1)} MiB |`,
      `| store in use before / after the refresh run (page_count − freelist) | ${fmt((m.storeBefore.bytes - m.storeBefore.freeBytes) / 1048576, 1)} / ${fmt((m.storeAfter.bytes - m.storeAfter.freeBytes) / 1048576, 1)} MiB |`,
      `| refresh-token rows before / after | ${fmt(m.storeBefore.refreshTokenRows)} / ${fmt(m.storeAfter.refreshTokenRows)} |`,
      `| store growth per refresh token issued | ${fmt(m.bytesPerRefreshToken)} bytes |`,
      `| purge: test clock advanced ${fmt(m.purge.advancedSeconds)} s, \`POST /__test/purge\` | ${fmt(m.purge.rowsBefore)} rows → ${fmt(m.purge.purged)} purged → ${fmt(m.purge.rowsAfter)} left |`,
      m.purge.rowsAfter === 0 ? '' : `\n**The purge left ${fmt(m.purge.rowsAfter)} expired refresh tokens.**`,
    );
  }

  push('', '## Auditing recorded traffic', '');
  if (!run.auditHar) push('Not measured in this run (`--only` or `--suite-only`).');
  else if ('failure' in run.auditHar) push(`**Failed**: ${run.auditHar.failure}`);
  else {
    push(
      "A HAR 1.2 file generated at bench time (token requests of the three grants, protected calls, refusals, a 256 KiB response body every 1,200 exchanges), judged by `token-conformance audit` in a child process (streamed: memory should not grow with the file). Peak RSS: the child's own (`process.resourceUsage().maxRSS`), tsx loading included.",
      '',
      '| HAR | exchanges | wall time | peak RSS | exit |',
      '|---:|---:|---:|---:|---:|',
      ...run.auditHar.map(
        (a) =>
          `| ${fmt(a.harMiB, 1)} MiB | ${fmt(a.exchanges)} | ${fmt(a.seconds, 1)} s | ${fmt(a.peakRssMiB, 1)} MiB | ${a.exitCode} |`,
      ),
    );
  }

  const cpu = (id: string): number | undefined => run.rows.find((r) => r.id === id)?.result?.cpuMicrosPerRequest;
  const [protectedCpu, fastifyCpu, bareCpu] = [
    cpu('ref-protected'),
    cpu('ceiling-fastify-fixed-json'),
    cpu('ceiling-fixed-json'),
  ];
  if (protectedCpu !== undefined && fastifyCpu !== undefined && bareCpu !== undefined) {
    push(
      '',
      `A protected call (verified-token cache hit) costs ${fmt(protectedCpu)} µs of server CPU per answer; Fastify answering fixed JSON ${fmt(fastifyCpu)} µs (${fmt(protectedCpu / fastifyCpu, 2)}×), bare node:http ${fmt(bareCpu)} µs.`,
    );
  }

  push('', '## The suite', '');
  if (run.timings.length === 0) push('Not timed in this run.');
  else {
    push(
      "Wall time, not pinned (the suite uses every core), on the same machine right after the rows above (if any). Requests: the HTTP requests the checks sent (checks.requests of the run's conformance.json).",
      '',
      '| command | wall time | CPU time | exit | requests | requirements |',
      '|---|---:|---:|---:|---:|---|',
    );
    for (const t of run.timings)
      push(
        `| \`${t.command}\` | ${fmt(t.seconds, 1)} s | ${t.cpuSeconds === undefined ? '–' : `${fmt(t.cpuSeconds, 1)} s`} | ${t.exitCode} | ${t.requests === undefined ? '–' : fmt(t.requests)} | ${t.verdicts ?? '–'} |`,
      );
    push(
      '',
      'CPU time: user + system of the command and every process under it that ended with it (from /proc: the children times of the bench process).',
    );
    const start = run.timings.find((t) => t.command.includes('--start-reference'));
    if (start) pushStartBreakdown(push, start);
  }
  for (const d of [run.distantClocks, run.distant])
    if (d)
      pushDistant(
        push,
        d,
        run.timings.find((t) => t.command.includes('--start-reference')),
      );
  if (run.foreign) pushForeign(push, run.foreign);

  pushClosingNote(push, run);

  push('', '## Versions', '', '| | version |', '|---|---|');
  for (const [name, version] of Object.entries(run.versions)) push(`| ${name} | ${version} |`);

  push(
    '',
    '## Settings that matter',
    '',
    "- The reference server runs as `token-conformance serve --http --port 0 --data <temp file> --test-controls --log-level warn --rate-spike 1000000 --rate-quota 100000000 --lockout-user 1000000 --lockout-client 1000000`: the gateway's rate limits and the lockouts are raised so that the rows measure issuance and protected calls, not 429s. One row keeps the default log level (`info`, one JSON line per request and per issued token to stderr).",
    '- Client secrets and passwords are scrypt hashes in the reference server; a successful verification is cached (HMAC of hash and secret), so after the first request a client costs an HMAC, not a scrypt. The peers compare a plain secret in memory.',
    "- Peers: oidc-provider with one resource server (`features.resourceIndicators`, `accessTokenFormat: 'jwt'`, `jwt.sign.alg: 'EdDSA'`), its own Koa callback on node:http, default in-memory adapter; @node-oauth/oauth2-server with an in-memory model whose `generateAccessToken` signs the same JWT as the ceiling (jose, EdDSA), behind node:http + URLSearchParams.",
    '- The protected call is `GET /v1/people/er/E-1001` with a client_credentials token (no refresh-token family to look up); the verification ceiling checks signature, `typ`, issuer, audience and expiry and answers a fixed person.',
    '',
    '## Re-run',
    '',
    '```sh',
    'npm run bench                      # everything but the self-validation (~10 min); writes bench/RESULTS.md',
    'npm run bench -- --suite           # also the self-validation (minutes more)',
    'npm run bench -- --quick --out /tmp/quick.md   # a smoke run',
    'npm run bench -- --suite-only --suite --skip-self-validation --out /tmp/suite.md   # npm start and the distant target only',
    '```',
    '',
    'On a shared machine, compare ratios from one run, not absolute figures across runs. See bench/README.md.',
    '',
  );
  return out.join('\n');
}
