// `npx token-conformance gate REPORT.json`: decides the build from a conformance report, after
// waivers. Exit 0 pass (or break-glass), 1 fail, 2 bad arguments or an unreadable report/waivers.
// Writes the decision to gate.json beside the report (or --out).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { processIo, type CommandIo } from './command-io.ts';
import { parseCommand } from './parse-command.ts';
import { actorFromEnv, coverageRules, decide, gateLine, type CoverageRule } from '../gate/gate.ts';
import { readReport, ReportError } from '../reporter/read-report.ts';
import { applyWaivers, loadWaivers, waiverLines, waiversOf, WaiversError } from '../waivers/waivers.ts';
import { catalogueLine, scoreInCatalogue } from '../reporter/catalogue-scoring.ts';
import { catalogueVersion, CatalogueVersionError } from '../../requirements/catalogue-versions.ts';

const usage = `Usage: token-conformance gate REPORT.json [options]

  --waivers FILE          apply a waivers file (schemas/waivers.schema.json); without it, the
                          waivers recorded in the report (run --waivers) are judged again today
  --strict                WARN blocks as well as FAIL
  --catalogue VERSION     judge only the requirements of this frozen catalogue release
                          (requirements/catalogue-versions/); the others read "not scored" and
                          never block. Without it, the report's own scoring (run --catalogue) stands
  --require-verified RULE coverage: must (every MUST and INTERPRETATION requirement), selected
                          (every requirement the run selected) or verifiable (every MUST this
                          profile makes verifiable: one the profile does not declare what it needs
                          for — a burnable user, clock control or a state file, … — is listed with
                          what would make it verifiable and does not block; one blocked by the
                          target or by a refused credential of the profile does) must be verified —
                          PASS, or a FAIL/WARN (waived or not), or NOT_APPLICABLE; a SKIP, BLOCKED or
                          PENDING one fails the gate, listed by ID, and so does a run that verified
                          nothing. Without it, SKIP, BLOCKED and PENDING never block (a waiver never
                          covers them). For CI against a real staging: verifiable
  --allow-pending         with --require-verified: a PENDING requirement (an obligation recorded in
                          the state file, settled by a later run) counts as verified; the scheduled
                          run that settles it still FAILs if the obligation does not hold
  --break-glass "REASON"  exit 0 despite blocking failures; the overridden failures, the reason,
                          who (GITHUB_ACTOR, else USER) and when are recorded in the gate file
  --json                  print the decision as JSON on stdout (the one-line verdict goes to stderr)
  --out FILE              where to write the decision (default: gate.json beside the report)
  --as-of YYYY-MM-DD      judge waiver expiry as of this day (default: today), e.g. to see what
                          the gate will say once a waiver has run out
  --help

Exit codes: 0 pass (or break-glass), 1 a blocking FAIL/UNCHECKED (or WARN with --strict, or an
unverified requirement with --require-verified), 2 bad
arguments, an unreadable report or an invalid waivers file.`;

/** The options of `gate` (exported so that the CI example's commands can be checked against them). */
export const gateOptions = {
  waivers: { type: 'string' },
  strict: { type: 'boolean', default: false },
  catalogue: { type: 'string' },
  'require-verified': { type: 'string' },
  'allow-pending': { type: 'boolean', default: false },
  'break-glass': { type: 'string' },
  json: { type: 'boolean', default: false },
  out: { type: 'string' },
  'as-of': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

export function gateMain(
  args: string[],
  io: CommandIo = processIo,
  now: Date = new Date(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  return Promise.resolve(gateSync(args, io, now, env));
}

function gateSync(
  args: string[],
  io: CommandIo = processIo,
  now: Date = new Date(),
  env: NodeJS.ProcessEnv = process.env,
): number {
  const fail = (message: string): number => {
    io.err(`token-conformance gate: ${message}`);
    return 2;
  };
  const parsed = parseCommand(args, gateOptions, usage, 'gate', io);
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values;
  if (parsed.positionals.length !== 1)
    return fail(`give exactly one REPORT.json (got ${parsed.positionals.length})\n\n${usage}`);
  const breakGlassReason = v['break-glass']?.trim();
  if (v['break-glass'] !== undefined && !breakGlassReason)
    return fail('--break-glass needs a reason, e.g. --break-glass "hotfix for INC-42, approved by on-call"');
  const rule = v['require-verified'];
  if (rule !== undefined && !(coverageRules as readonly string[]).includes(rule))
    return fail(
      `--require-verified must be ${coverageRules.slice(0, -1).join(', ')} or ${coverageRules.at(-1)!} (got '${rule}')`,
    );
  if (v['allow-pending'] && rule === undefined)
    return fail('--allow-pending goes with --require-verified (without a coverage rule PENDING never blocks)');
  const reportFile = parsed.positionals[0]!;
  if (v['as-of'] !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v['as-of']) || Number.isNaN(Date.parse(`${v['as-of']}T12:00:00Z`)))
      return fail(`--as-of must be a day YYYY-MM-DD (got '${v['as-of']}')`);
    now = new Date(`${v['as-of']}T12:00:00Z`);
  }
  let report;
  try {
    report = readReport(reportFile);
    if (v.catalogue !== undefined) report = scoreInCatalogue(report, catalogueVersion(v.catalogue));
    if (v.waivers !== undefined) report = applyWaivers(report, loadWaivers(v.waivers), now);
    else if (report.waivers) report = applyWaivers(report, waiversOf(report), now);
  } catch (error) {
    if (error instanceof ReportError || error instanceof WaiversError || error instanceof CatalogueVersionError)
      return fail(error.message);
    throw error;
  }
  const out = resolve(v.out ?? join(dirname(reportFile), 'gate.json'));
  const decision = decide(report, {
    strict: v.strict,
    ...(rule !== undefined ? { requireVerified: rule as CoverageRule } : {}),
    allowPending: v['allow-pending'],
    reportFile,
    now,
    ...(breakGlassReason ? { breakGlass: { reason: breakGlassReason, actor: actorFromEnv(env) } } : {}),
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(decision, null, 2)}\n`);
  const line = gateLine(decision, v.out ?? (relative(process.cwd(), out) || out));
  if (v.json) {
    io.out(JSON.stringify(decision, null, 2));
    io.err(line);
  } else {
    for (const l of waiverLines(report)) io.out(l);
    const scoredIn = catalogueLine(report);
    if (scoredIn) io.out(scoredIn);
    if (decision.decision === 'break-glass')
      io.err(
        'token-conformance gate: BREAK-GLASS — the build passes despite blocking failures; this override is recorded.',
      );
    else if (breakGlassReason && decision.decision === 'pass')
      io.err('token-conformance gate: --break-glass not needed: nothing blocks; no override recorded.');
    io.out(line);
  }
  return decision.exitCode;
}
