// The end-of-run verification of a reports directory: one pass over each file with a multi-pattern
// matcher of every known secret value (in each form a report file writes it: raw, JSON-, XML-,
// URI-escaped) and the JWT shape. Everything the suite writes was redacted at its source, so this
// normally finds nothing and changes nothing.
//
// A finding in a file the suite cannot control (a Playwright or allure-playwright file, e.g. a step
// error) is repaired structurally where the format allows it: a JSON file is parsed, its strings
// redacted, and written again (never a substitution inside JSON text); a line-text file (.txt,
// .log, .md) line by line. A finding in any other file (XML, HTML, archives) stays and is reported.
// Occurrences inside the suite's own text (a check title, a file path that happens to contain a
// secret value) are not findings: that text is never redacted.
//
// Whose value it is decides what a finding that remains means. A secret of the profile (a client
// secret, a password) must never be in a report: one that remains fails the run. A token the
// target issued (a value the run saw, or a JWT-shaped run) is the target's own text: the target
// chose it, so it can choose one that matches the page's own words or text it echoes elsewhere.
// It is redacted where the file allows, and where it remains it is named, never a failure: a
// target must not be able to make a run fail, or its reports read as leaking, with its own words.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { repoRoot } from '../catalogue/catalogue.ts';
import { minimumSecretLength, replaceRanges, writtenForms } from './redact.ts';
import { listFiles } from './report-files.ts';
import { SecretMatcher, type Occurrence } from './secret-matcher.ts';

const binaryExtensions = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.zip',
  '.woff',
  '.woff2',
  '.ico',
  '.webm',
  '.pdf',
]);
const lineTextExtensions = new Set(['.txt', '.log', '.md']);
const jwtShape = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

/** Whose value a finding is: a secret of the profile, or a token (or token-shaped text) of the target. */
export type FindingOwner = 'profile' | 'target';

export interface Finding {
  /** Relative to the verified directory. */
  file: string;
  line: number;
  /** What was found, never the value itself. */
  what: string;
  owner: FindingOwner;
}

export interface Verification {
  files: number;
  /** Secrets of the profile that remain (not repairable): the run fails on these. */
  remaining: Finding[];
  /** Findings repaired in place (structurally). */
  repaired: Finding[];
  /** The target's tokens (or token-shaped text) that remain where the file cannot be rewritten: named, never a failure. */
  targetText: Finding[];
}

export interface VerifyOptions {
  /** Text the suite wrote itself (title parts, file paths, project names): never a finding, never redacted. */
  ownText?: string[];
  /** Repair JSON and line-text files in place (default true). */
  repair?: boolean;
  /** The tokens the target issued during the run (the seen-tokens file): its values, not the profile's. */
  targetTokens?: Iterable<string>;
  /**
   * A JWT-shaped run is the target's text (a run: the profile's secrets are found by value, so such
   * a run is a token the target issued or text it sent), not a secret. Default false: in an
   * audit's reports it is a recorded caller's token.
   */
  tokenShapesAreTargetText?: boolean;
}

interface Located {
  start: number;
  end: number;
  what: string;
  owner: FindingOwner;
}

/** A verifier built once per run: the matcher over every written form of every known value. */
export class ReportVerifier {
  private readonly profileMatcher: SecretMatcher;
  private readonly targetMatcher: SecretMatcher;
  private readonly ownForms: string[];
  private readonly ownContaining = new Map<string, string[]>();

  /** `secrets`: the profile's; `targetTokens`: what the target issued (a value in both counts as the profile's). */
  constructor(
    secrets: Iterable<string>,
    ownText: string[] = [],
    targetTokens: Iterable<string> = [],
    private readonly shapeOwner: FindingOwner = 'profile',
  ) {
    const searched = (values: Iterable<string>) => [...values].filter((s) => s.length >= minimumSecretLength);
    const profile = searched(secrets);
    this.profileMatcher = new SecretMatcher(profile.flatMap(writtenForms));
    const own = new Set(profile);
    this.targetMatcher = new SecretMatcher(
      searched(targetTokens)
        .filter((t) => !own.has(t))
        .flatMap(writtenForms),
    );
    this.ownForms = [...new Set(ownText.filter((t) => t.length > 0).flatMap(writtenForms))];
  }

  /** True when the occurrence lies inside one of the suite's own strings. */
  private insideOwnText(text: string, o: Occurrence): boolean {
    let containing = this.ownContaining.get(o.value);
    if (!containing) {
      containing = this.ownForms.filter((t) => t.includes(o.value));
      this.ownContaining.set(o.value, containing);
    }
    for (const own of containing) {
      for (let k = own.indexOf(o.value); k >= 0; k = own.indexOf(o.value, k + 1)) {
        if (o.start - k >= 0 && text.startsWith(own, o.start - k)) return true;
      }
    }
    return false;
  }

  /** The secret occurrences of `text` that are not the suite's own text, the target's tokens, and the JWT-shaped runs. */
  find(text: string): Located[] {
    const occurrences = (matcher: SecretMatcher) =>
      matcher.occurrences(text).filter((o) => !this.insideOwnText(text, o));
    const found: Located[] = occurrences(this.profileMatcher).map((o) => ({
      start: o.start,
      end: o.end,
      what: `a known secret value (${o.value.length} characters)`,
      owner: 'profile',
    }));
    for (const o of occurrences(this.targetMatcher))
      found.push({
        start: o.start,
        end: o.end,
        what: `a token the target issued (${o.value.length} characters)`,
        owner: 'target',
      });
    for (const m of text.matchAll(jwtShape))
      found.push({ start: m.index, end: m.index + m[0].length, what: 'a JWT-shaped token', owner: this.shapeOwner });
    return found;
  }

  /** `text` with every finding replaced by [REDACTED]. */
  redact(text: string, owners: readonly FindingOwner[] = ['profile', 'target']): string {
    const ranges = this.find(text)
      .filter((f) => owners.includes(f.owner))
      .map((f): [number, number] => [f.start, f.end])
      .sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const r of ranges) {
      const last = merged.at(-1);
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push([...r]);
    }
    return replaceRanges(text, merged);
  }

  private redactJson(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.redactJson(v));
    if (value !== null && typeof value === 'object')
      // A key is the report's own name: a token the target chose to match one (e.g. "requirements") would
      // break the file's shape, so keys lose only the profile's secrets.
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [this.redact(k, ['profile']), this.redactJson(v)]),
      );
    return value;
  }

  /** Verifies (and, for JSON and line text, repairs) one file. */
  verifyFile(path: string, name: string, repair: boolean): Omit<Verification, 'files'> {
    const ext = extname(path).toLowerCase();
    const none = { remaining: [], repaired: [], targetText: [] };
    if (binaryExtensions.has(ext)) return none;
    const text = readFileSync(path, 'utf8');
    const findings = this.find(text).map((f) => ({
      file: name,
      line: lineOf(text, f.start),
      what: f.what,
      owner: f.owner,
    }));
    if (findings.length === 0) return none;
    if (repair) {
      let fixed: string | undefined;
      if (ext === '.json') {
        try {
          const indent = /^[[{]\n( +)/.exec(text)?.[1]?.length ?? 0;
          fixed = `${JSON.stringify(this.redactJson(JSON.parse(text) as unknown), null, indent)}${text.endsWith('\n') ? '\n' : ''}`;
        } catch {
          fixed = undefined; // not JSON after all: reported as it is
        }
      } else if (lineTextExtensions.has(ext)) {
        fixed = text
          .split('\n')
          .map((l) => this.redact(l))
          .join('\n');
      }
      const left = fixed === undefined ? [] : this.find(fixed);
      if (fixed !== undefined && !left.some((f) => f.owner === 'profile')) {
        writeFileSync(path, fixed);
        const targetText = left.map((f) => ({
          file: name,
          line: lineOf(fixed, f.start),
          what: f.what,
          owner: f.owner,
        }));
        return { remaining: [], repaired: findings, targetText };
      }
    }
    return {
      remaining: findings.filter((f) => f.owner === 'profile'),
      repaired: [],
      targetText: findings.filter((f) => f.owner === 'target'),
    };
  }
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Verifies every file under `dir` once; `secrets` are the profile's (options.targetTokens the target's). */
export function verifyReports(dir: string, secrets: Iterable<string>, options: VerifyOptions = {}): Verification {
  const verifier = new ReportVerifier(
    secrets,
    options.ownText,
    options.targetTokens,
    options.tokenShapesAreTargetText ? 'target' : 'profile',
  );
  const files = listFiles(dir);
  const out: Verification = { files: files.length, remaining: [], repaired: [], targetText: [] };
  for (const file of files) {
    const r = verifier.verifyFile(file, relative(dir, file), options.repair ?? true);
    out.remaining.push(...r.remaining);
    out.repaired.push(...r.repaired);
    out.targetText.push(...r.targetText);
  }
  return out;
}

/** The text the suite wrote itself into a run's reports (title parts, file paths, names): never a finding. */
export function ownTextOf(reportsDir: string): string[] {
  const own = new Set<string>([repoRoot, reportsDir]);
  const file = join(reportsDir, 'checks.json');
  if (existsSync(file)) {
    try {
      const { checks } = JSON.parse(readFileSync(file, 'utf8')) as {
        checks: { title: string; file?: string; project?: string; requirementIds?: string[] }[];
      };
      for (const c of checks) {
        own.add(c.title);
        for (const part of c.title.split(' › ')) own.add(part);
        for (const s of [c.file, c.project, ...(c.requirementIds ?? [])]) if (s) own.add(s);
      }
    } catch {
      // no readable checks.json: every occurrence counts
    }
  }
  return [...own];
}
