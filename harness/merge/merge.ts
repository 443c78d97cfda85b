// Merging the reports of a sharded run (`run --shard I/N` on N machines) into the one report a
// single run would have written. Verdicts are recomputed per requirement from every shard's raw
// check outcomes (checks.json) with the same buildReport a run uses — never concatenated — so a
// requirement whose checks fell into two shards gets one verdict from all of them. Obligations
// merge the same way: PENDING like any verdict (the earliest due time); a settlement in
// one shard and an obligation pending in another follow the requirement rule (a PASS settlement
// outranks a new obligation, any FAIL wins), and an obligation settled in one shard is no longer
// pending in any (verdict.ts withoutSettledPending).
//
// Refused, with a clear error: inputs of different suite versions, profiles (profileSha256),
// targets or selections (level, grep, strict); an input that is not a shard; shards of different
// totals; the same shard twice; missing shards; a check present in two shards (overlap).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadCatalogue } from '../../core/catalogue/catalogue.ts';
import { transcriptsDir, type ChecksFile } from '../reporter/conformance.reporter.ts';
import type { ConformanceReport } from '../reporter/report.schema.ts';
import { reportFileNames, writeReportFiles } from '../reporter/write-report-files.ts';
import { buildReport, type CheckOutcome } from '../reporter/verdict.ts';
import { scoreInCatalogue, withCurrentCatalogue } from '../reporter/catalogue-scoring.ts';
import { catalogueVersion } from '../../requirements/catalogue-versions.ts';
import { readReport, ReportError } from '../reporter/read-report.ts';

export class MergeError extends Error {
  override readonly name = 'MergeError';
}

export interface ShardInput {
  /** The shard's report directory. */
  dir: string;
  report: ConformanceReport;
  checks: ChecksFile;
  index: number;
  total: number;
}

/** A shard report directory, or its conformance.json / checks.json. */
export function shardDir(path: string): string {
  if (!existsSync(path)) throw new MergeError(`${path}: no such file or directory`);
  return statSync(path).isDirectory() ? path : dirname(path);
}

/** Whether a conformance.json is an audit's (read before it is validated as a shard). */
function readAuditMarker(file: string): boolean {
  try {
    return typeof (JSON.parse(readFileSync(file, 'utf8')) as { audit?: unknown }).audit === 'object';
  } catch {
    return false;
  }
}

export function readShard(path: string): ShardInput {
  const dir = shardDir(path);
  const reportFile = join(dir, 'conformance.json');
  const checksFile = join(dir, 'checks.json');
  if (!existsSync(reportFile))
    throw new MergeError(
      `${dir}: no conformance.json (give the --reports directory of a \`token-conformance run --shard I/N\`)`,
    );
  if (readAuditMarker(reportFile))
    throw new MergeError(
      `${dir}: an audit report (token-conformance audit) is not a shard: its cross-exchange rules need all the traffic together — give every traffic file to one \`audit\``,
    );
  if (!existsSync(checksFile))
    throw new MergeError(`${dir}: no checks.json beside conformance.json (the raw check outcomes a merge needs)`);
  let report: ConformanceReport;
  try {
    report = readReport(reportFile);
  } catch (error) {
    if (error instanceof ReportError) throw new MergeError(error.message);
    throw error;
  }
  let checks: ChecksFile;
  try {
    checks = JSON.parse(readFileSync(checksFile, 'utf8')) as ChecksFile;
  } catch (error) {
    throw new MergeError(`${checksFile}: not readable JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(checks.checks)) throw new MergeError(`${checksFile}: no "checks" array`);
  const shard = checks.shard ?? report.selection.shard;
  const m = shard === undefined ? null : /^(\d+)\/(\d+)$/.exec(shard);
  if (!m)
    throw new MergeError(
      `${dir}: not a shard report (it was run without --shard); merge takes the N reports of one run split with --shard I/N`,
    );
  return { dir, report, checks, index: Number(m[1]), total: Number(m[2]) };
}

/** Every way two shards can disagree, as one message each. */
export function mismatches(shards: ShardInput[]): string[] {
  const problems: string[] = [];
  const first = shards[0]!;
  const same = <T>(what: string, get: (s: ShardInput) => T, show: (v: T) => string = String) => {
    const values = new Map<string, ShardInput[]>();
    for (const s of shards) {
      const key = JSON.stringify(get(s) ?? null);
      values.set(key, [...(values.get(key) ?? []), s]);
    }
    if (values.size > 1)
      problems.push(
        `different ${what}: ${[...values.values()].map((list) => `${show(get(list[0]!))} (${list.map((s) => s.dir).join(', ')})`).join(' vs ')}`,
      );
  };
  same('suite versions', (s) => s.report.suiteVersion);
  same(
    'profiles (SHA-256 of the profile, secrets excluded)',
    (s) => s.report.target.profileSha256 ?? `target "${s.report.target.name}", no hash`,
    (v) => (/^[0-9a-f]{64}$/.test(v) ? `${v.slice(0, 12)}…` : v),
  );
  same('requirement levels (--level)', (s) => s.report.selection.level);
  same(
    'selections (--grep)',
    (s) => s.report.selection.grep,
    (v) => (v === undefined ? 'no --grep' : `--grep ${v}`),
  );
  same(
    '--strict settings',
    (s) => s.report.selection.strict,
    (v) => (v ? '--strict' : 'not strict'),
  );
  same(
    'selections (--spec, --grep)',
    (s) => s.checks.filtered ?? false,
    (v) => (v ? 'filtered' : 'unfiltered'),
  );
  same(
    'catalogue releases scored (--catalogue)',
    (s) => s.report.catalogue?.version,
    (v) => (v === undefined ? 'no catalogue named' : `catalogue ${v}`),
  );
  same(
    'shard totals',
    (s) => s.total,
    (v) => `of ${v}`,
  );
  if (problems.some((p) => p.startsWith('different shard totals'))) return problems;
  const byIndex = new Map<number, ShardInput[]>();
  for (const s of shards) byIndex.set(s.index, [...(byIndex.get(s.index) ?? []), s]);
  for (const [index, list] of byIndex)
    if (list.length > 1)
      problems.push(
        `overlapping shards: shard ${index}/${first.total} given ${list.length} times (${list.map((s) => s.dir).join(', ')})`,
      );
  const missing = Array.from({ length: first.total }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    problems.push(
      `missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${first.total}`).join(', ')}: a merge needs all ${first.total} shards of the run`,
    );
  if (problems.length > 0) return problems;
  const seen = new Map<string, ShardInput>();
  const overlaps: string[] = [];
  for (const s of shards) {
    for (const c of s.checks.checks) {
      const key = `${c.project ?? ''}|${c.title}`;
      const other = seen.get(key);
      if (other && other !== s)
        overlaps.push(`"${c.title}" (${c.project ?? 'no project'}) in shards ${other.index} and ${s.index}`);
      else seen.set(key, s);
    }
  }
  if (overlaps.length > 0)
    problems.push(
      `overlapping shards: ${overlaps.length} check(s) ran in two shards, e.g. ${overlaps[0]} — were these shards of different runs?`,
    );
  return problems;
}

/** The report a single run would have written, from all shards (validated by the caller). */
export function mergeReports(shards: ShardInput[]): { report: ConformanceReport; checks: ChecksFile } {
  const ordered = [...shards].sort((a, b) => a.index - b.index);
  const first = ordered[0]!;
  const outcomes: CheckOutcome[] = ordered.flatMap((s) => s.checks.checks);
  const starts = ordered.map((s) => Date.parse(s.report.startedAt));
  const startedAt = new Date(Math.min(...starts));
  // Wall time from the first shard's start to the last shard's end (shards run side by side).
  const durationMs = Math.max(...ordered.map((s, i) => starts[i]! + s.report.durationMs)) - startedAt.getTime();
  const filtered = first.checks.filtered ?? false;
  const { selection } = first.report;
  const built = buildReport(loadCatalogue(), outcomes, {
    level: selection.level,
    filtered,
    strict: selection.strict,
    ...(selection.grep !== undefined ? { grep: selection.grep } : {}),
    suiteVersion: first.report.suiteVersion,
    startedAt,
    durationMs,
    target: first.report.target,
    ...(first.report.regionParity ? { regionParity: first.report.regionParity } : {}),
  });
  // The shards' catalogue release (they agree: mismatches) scores the merged report the same way.
  const scoredIn = first.report.catalogue?.frozen ? first.report.catalogue.version : undefined;
  const report =
    scoredIn !== undefined ? scoreInCatalogue(built, catalogueVersion(scoredIn)) : withCurrentCatalogue(built);
  return { report, checks: { startedAt: report.startedAt, durationMs, filtered, checks: outcomes } };
}

const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const setAttr = (tag: string, name: string, value: string) =>
  tag.replace(new RegExp(`(\\s${name}=")[^"]*(")`), `$1${value}$2`);

/**
 * Playwright JUnit files of the shards as one: a file's <testsuite> elements (one per spec file and
 * project; a file split across shards appears in several) joined into one, counts summed, the
 * earliest timestamp; <testsuites> totals summed, its time the longest shard's (they ran side by side).
 */
export function mergeJunit(texts: string[]): string {
  const suites = new Map<string, { open: string; body: string[] }>();
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  let errors = 0;
  let time = 0;
  for (const text of texts) {
    const root = /<testsuites\b[^>]*>/.exec(text)?.[0];
    if (!root) throw new MergeError('a JUnit file without <testsuites>');
    tests += Number(attr(root, 'tests') ?? 0);
    failures += Number(attr(root, 'failures') ?? 0);
    skipped += Number(attr(root, 'skipped') ?? 0);
    errors += Number(attr(root, 'errors') ?? 0);
    time = Math.max(time, Number(attr(root, 'time') ?? 0));
    for (const m of text.matchAll(/(<testsuite\b[^>]*?)(\/>|>([\s\S]*?)<\/testsuite>)/g)) {
      const open = `${m[1]!}>`;
      const key = `${attr(open, 'name') ?? ''}|${attr(open, 'hostname') ?? ''}`;
      const body = (m[3] ?? '').replace(/^\n/, '').replace(/\n$/, '');
      const existing = suites.get(key);
      if (!existing) {
        suites.set(key, { open, body: body ? [body] : [] });
        continue;
      }
      let merged = existing.open;
      for (const n of ['tests', 'failures', 'skipped', 'errors'])
        merged = setAttr(merged, n, String(Number(attr(merged, n) ?? 0) + Number(attr(open, n) ?? 0)));
      merged = setAttr(
        merged,
        'time',
        String(Math.round((Number(attr(merged, 'time') ?? 0) + Number(attr(open, 'time') ?? 0)) * 1000) / 1000),
      );
      const ts = [attr(existing.open, 'timestamp'), attr(open, 'timestamp')]
        .filter((t): t is string => t !== undefined)
        .sort()[0];
      if (ts) merged = setAttr(merged, 'timestamp', ts);
      existing.open = merged;
      if (body) existing.body.push(body);
    }
  }
  const inner = [...suites.values()]
    .map((s) => `${s.open}\n${s.body.join('\n')}${s.body.length > 0 ? '\n' : ''}</testsuite>`)
    .join('\n');
  return `<testsuites id="" name="" tests="${tests}" failures="${failures}" skipped="${skipped}" errors="${errors}" time="${time}">\n${inner}\n</testsuites>`;
}

/** Copies every file of a shard's subdirectory (transcripts/, allure-results/) into the merged one; names are unique per check. */
function copyTree(from: string, to: string): number {
  if (!existsSync(from)) return 0;
  mkdirSync(to, { recursive: true });
  let n = 0;
  for (const name of readdirSync(from)) {
    cpSync(join(from, name), join(to, name), { recursive: true });
    n += 1;
  }
  return n;
}

export interface MergeOutput {
  report: ConformanceReport;
  files: string[];
  transcripts: number;
  /** A shard report carried waivers (run --waivers): the merged report is built before waivers. */
  shardsHadWaivers: boolean;
}

/** Reads, validates and merges; writes the merged reports into `out`. Throws MergeError. */
export function mergeShardDirectories(paths: string[], out: string): MergeOutput {
  if (paths.length === 0)
    throw new MergeError('give the report directories (or conformance.json files) of every shard');
  const shards = paths.map(readShard);
  const problems = mismatches(shards);
  if (problems.length > 0) throw new MergeError(problems.join('\n'));
  const { report, checks } = mergeReports(shards);
  mkdirSync(out, { recursive: true });
  const files = [...reportFileNames, 'checks.json'];
  writeReportFiles(out, report);
  writeFileSync(join(out, 'checks.json'), `${JSON.stringify(checks, null, 2)}\n`);
  const ordered = [...shards].sort((a, b) => a.index - b.index);
  for (const name of ['junit.xml', 'junit-time-travel.xml']) {
    const texts = ordered
      .map((s) => join(s.dir, name))
      .filter(existsSync)
      .map((f) => readFileSync(f, 'utf8'));
    if (texts.length === 0) continue;
    writeFileSync(join(out, name), mergeJunit(texts));
    files.push(name);
  }
  let transcripts = 0;
  for (const s of ordered) {
    transcripts += copyTree(join(s.dir, transcriptsDir), join(out, transcriptsDir));
    copyTree(join(s.dir, 'allure-results'), join(out, 'allure-results'));
  }
  if (transcripts > 0) files.push(`${transcriptsDir}/`);
  if (existsSync(join(out, 'allure-results'))) files.push('allure-results/');
  return { report, files, transcripts, shardsHadWaivers: shards.some((s) => s.report.waivers !== undefined) };
}
