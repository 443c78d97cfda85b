// reports/self-validation/matrix.json: what the self-validation found, fault by fault, and the
// coverage of the catalogue. Types only: the runner (run-self-validation.ts) builds it, the HTML
// page (matrix-html.ts) renders it.
import type { Pass } from '../harness/commands/run.command.ts';

/**
 * How much a run selects. `ci`: each fault runs the checks of its own IDs, its collateral and the
 * sentinels (plus the property checks citing its breaks, when it asks). `full`: every check of the
 * suite under every fault, property checks and the 30-second quota check included — precision is
 * judged on the whole suite (for the bench or a scheduled job: far too slow for CI).
 */
export type Mode = 'ci' | 'full';

export interface FaultResult {
  id: string;
  title: string;
  breaks: string[];
  collateral: string[];
  grep: string;
  /**
   * How the fault was run: the checks selected (from the clean run's checks.json), the passes, the
   * server (the shared sandbox, one of its own, or its group's: the group's @clock/@serial faults one at a time).
   */
  run: {
    checks: number | null;
    passes: Pass[];
    specs: number | null;
    server: 'shared' | 'fresh' | 'group';
    workers: number;
  };
  detected: boolean;
  missed: { id: string; verdict: string }[];
  falseAlarms: { id: string; verdict: string; reason?: string }[];
  collateralSeen: string[];
  /** Requirements the fault left BLOCKED (not verified: another requirement's violation stopped their checks) — never a false alarm. */
  blocked: string[];
  verdicts: Record<string, string>;
  /** Every requirement that reads FAIL or WARN in the fault's run (its breaks, collateral and false alarms). */
  moved: string[];
  /** The failed checks that saw the fault: scripted checks citing a requirement it moved, and failed property checks. */
  caughtBy: CaughtBy[];
  /** The property checks run under the fault (titles). */
  propertiesRun: string[];
  durationMs: number;
  problem?: string;
}

export interface CaughtBy {
  title: string;
  requirementIds: string[];
  property: boolean;
}

export interface Matrix {
  generatedAt: string;
  /** ci: each fault runs the checks of its own IDs, its collateral, the sentinels (and the property checks it asks for); full: every check under every fault. */
  mode: Mode;
  durationMs: number;
  clean: { source: string; verdict: string; fail: number; warn: number; clean: boolean; problem?: string };
  faults: FaultResult[];
  summary: { faults: number; detected: number; missed: number; falseAlarms: number; detectionRate: number };
  /** Each property check of the run and the faults it caught; one that caught none is reported. */
  properties: { title: string; ranUnder: number; caught: string[] }[];
  coverage: Coverage;
}

export interface Coverage {
  /** Every requirement of the catalogue counts. */
  requirements: number;
  byLevel: Record<string, { total: number; reached: number }>;
  /** Turned by a detected fault: MUST/INTERPRETATION to FAIL, SHOULD/ADVISORY to WARN (a declaration fault counts). */
  reached: string[];
  unreachedWithReason: { id: string; reason: string }[];
  unreachedWithoutReason: string[];
}
