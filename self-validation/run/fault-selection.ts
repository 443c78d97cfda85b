// What a fault runs, planned without starting anything: the checks of its own requirement IDs, its
// collateral and one sentinel check per path, found in the clean run's checks.json; so which spec
// files to load and which passes are needed.
import { readFileSync } from 'node:fs';
import type { Pass } from '../../harness/commands/run.command.ts';
import type { Fault } from '../fault.ts';
import type { Mode } from '../matrix.ts';
import { rateLimitSpecs } from './rate-limits.ts';
import { inTimeTravelPass } from '../../core/run/time-travel-pass.ts';
import { escapeRegExp } from '../../core/text/escape-regexp.ts';

const slowChecks = ['ERR-GW-2000'];

/** A sentinel: one fast check of the suite, named by its requirement and the start of its title. */
export interface Sentinel {
  id: string;
  title: string;
}

/**
 * Run under every fault besides its own checks: one fast check on each of four paths (token
 * success, token error, protected call, gateway rejection; none of them @clock/@serial), so that a
 * fault that breaks far more than it declares (a proxy that breaks every token response, every
 * protected call, TLS…) shows up as false alarms. One check per path is enough for that: a path
 * broken for one check is broken for its siblings; the whole suite runs unfaulted in the clean run.
 */
export const sentinels: Sentinel[] = [
  { id: 'TOKEN-RESP-001', title: 'TOKEN-RESP-001 at US every successful token response has status 200' },
  { id: 'ERR-TOK-004', title: 'ERR-TOK-004 at US grant_type=urn:example:unknown, which the target does not support' },
  { id: 'BEARER-001', title: 'BEARER-001 a call with a client_credentials access token' },
  { id: 'ERR-GW-1201', title: 'ERR-GW-1201 a protected call without an Authorization header gets 000-1201' },
];

/** The requirement IDs all of whose checks a fault runs: its breaks, collateral and alsoRun (or onlyChecksOf). */
export function selectedIds(fault: Fault): string[] {
  return [
    ...new Set(fault.onlyChecksOf ?? [...fault.breaks, ...(fault.collateral?.ids ?? []), ...(fault.alsoRun ?? [])]),
  ];
}

/** The sentinels a fault runs besides its own checks (none with onlyChecksOf). */
export const sentinelsOf = (fault: Fault): Sentinel[] => (fault.onlyChecksOf ? [] : sentinels);

const tagEnd = '(?![\\w-])';
const anyOf = (ids: string[]) => ids.map((id) => `@${id}${tagEnd}`).join('|');
/** A sentinel's check: the start of its title and its requirement's tag (a title alone could be another check's words). */
const sentinelCheck = (s: Sentinel) => `(?=[\\s\\S]*${escapeRegExp(s.title)})(?=[\\s\\S]*@${s.id}${tagEnd})`;

/**
 * The Playwright grep of a fault. CI mode: the `@<ID>` tags of its selected IDs and its sentinels' checks, never the 30-s quota
 * check unless asked; property checks (`@property-<name>`) only when the fault asks for them
 * (`withProperties`), and then only those citing one of its breaks (or of its `alsoRun`). Full mode: every check.
 */
export function grepFor(fault: Fault, mode: Mode = 'ci'): string {
  if (mode === 'full') return '^';
  const slow = slowChecks.filter((id) => !fault.breaks.includes(id));
  const notSlow = slow.length ? `(?![\\s\\S]*(?:${anyOf(slow)}))` : '';
  const own = `(?=[\\s\\S]*(?:${anyOf(selectedIds(fault))}))`;
  const scripted = `(?![\\s\\S]*@property-)${notSlow}(?:${[own, ...sentinelsOf(fault).map(sentinelCheck)].join('|')})`;
  if (!fault.withProperties) return `^${scripted}`;
  const properties = `(?=[\\s\\S]*@property-)${notSlow}(?=[\\s\\S]*(?:${anyOf([...fault.breaks, ...(fault.alsoRun ?? [])])}))`;
  return `^(?:${scripted}|${properties})`;
}

/** Whether a check is a property check (fast-check, under specs/properties/). */
export const isPropertyCheck = (c: { file?: string; title: string }): boolean =>
  (c.file ?? c.title).startsWith('specs/properties/');

/** One check of the clean run's checks.json (the conformance reporter's raw outcomes). */
export interface CleanCheck {
  title: string;
  file: string;
  project: string;
  requirementIds: string[];
  durationMs?: number;
}

export interface RunPlan {
  grep: string;
  /** Selected checks (null: no clean checks.json to plan from, so everything is loaded and both passes run). */
  checks: number | null;
  /** Spec files to load (undefined: all). */
  specs?: string[];
  passes: Pass[];
  /** The selected checks' time in the clean run (ms), to balance the groups; undefined without a clean run. */
  estimatedMs?: number;
  /** A selected check reads the rate-limit thresholds: the fault runs on the self-validation's (selfValidationRateLimit). */
  rateLimits?: boolean;
}

/**
 * What a fault's run needs, worked out from the clean run's checks.json without starting
 * Playwright: which checks the grep selects (matched against each check's title and `@<ID>` tags,
 * plus `@property-` for the property specs), so which spec files to load and whether the
 * time-travel pass (@clock/@serial checks) is needed at all.
 */
export function planFor(fault: Fault, clean: CleanCheck[] | undefined, mode: Mode = 'ci'): RunPlan {
  const grep = grepFor(fault, mode);
  if (!clean) return { grep, checks: null, passes: ['conformance', 'time-travel'] };
  const re = new RegExp(grep);
  const selected = clean.filter((c) =>
    re.test(`${c.title} ${c.requirementIds.map((id) => `@${id}`).join(' ')}${isPropertyCheck(c) ? ' @property-' : ''}`),
  );
  const passes: Pass[] = selected.some((c) => inTimeTravelPass(c.project))
    ? selected.some((c) => !inTimeTravelPass(c.project))
      ? ['conformance', 'time-travel']
      : ['time-travel']
    : ['conformance'];
  const specs = [...new Set(selected.map((c) => c.file))].sort();
  return {
    grep,
    checks: selected.length,
    specs,
    passes,
    estimatedMs: selected.reduce((n, c) => n + (c.durationMs ?? 0), 0),
    rateLimits: specs.some((f) => rateLimitSpecs.includes(f)),
  };
}

/** Each sentinel names exactly one check of the clean run; else its title changed and a path would go unguarded. */
export function sentinelProblems(clean: CleanCheck[]): string[] {
  return sentinels.flatMap((s) => {
    const n = clean.filter((c) => c.requirementIds.includes(s.id) && c.title.includes(s.title)).length;
    return n === 1
      ? []
      : [
          `the sentinel ${s.id} "${s.title}" names ${n} checks of the clean run, not one (self-validation/run/fault-selection.ts sentinels)`,
        ];
  });
}

export function readCleanChecks(file: string): CleanCheck[] | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { checks?: CleanCheck[] };
    return Array.isArray(parsed.checks) && parsed.checks.length > 0 ? parsed.checks : undefined;
  } catch {
    return undefined;
  }
}
