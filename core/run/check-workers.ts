// How many Playwright workers run the conformance checks. Two cores: an API check waits on the
// network far more than it computes, so a local run uses twice the cores (CI, whose machine runs
// other jobs too, the cores). Against a distant target the waits are round trips: a check that takes
// a few hundred milliseconds locally takes seconds there while its worker sits idle, so twice the
// workers send twice the independent checks at once — but only where a core is idle: a worker's
// start is a second or more of CPU (most of it Playwright's own module loading), which on a busy
// machine costs more than the waits it would overlap. What must stay serial (one clock, one fault
// switch, one rate-limit window) is in the time-travel project, whose workers playwright.config.ts
// sets apart.

/** A round trip from which a target counts as distant (ms): well above loopback and a LAN. */
export const distantRoundTripMs = 10;

export interface WorkerSituation {
  ci: boolean;
  /** The round trip `run` measured to the target, if it did. */
  roundTripMs?: number;
  /** Cores the machine's load leaves idle (cores − the 1-minute load average). */
  idleCores: number;
}

/** Whether more workers than the usual are worth their start: a distant target and a core idle to start them. */
export function moreWorkersPay({ roundTripMs, idleCores }: WorkerSituation): boolean {
  return roundTripMs !== undefined && roundTripMs >= distantRoundTripMs && idleCores >= 1;
}

/**
 * A round trip from which the serial checks' round trips outweigh their lanes' worker starts even
 * on a busy machine (ms): some 290 sequential requests against an independent target 80 ms away
 * (one way) took 52–62 s one at a time and 28–30 s in lanes at load 13–23.
 */
export const farRoundTripMs = 100;

/** Whether the serial checks' lanes (serial-lanes.ts) are worth their workers' start. */
export function lanesPay(situation: WorkerSituation): boolean {
  return moreWorkersPay(situation) || (situation.roundTripMs !== undefined && situation.roundTripMs >= farRoundTripMs);
}

/** The conformance project's workers in this situation. */
export function checkWorkers(situation: WorkerSituation): number {
  const base = situation.ci ? 2 : 4;
  return moreWorkersPay(situation) ? base * 2 : base;
}
