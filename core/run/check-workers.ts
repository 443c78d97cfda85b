// How many Playwright workers run the checks. Two cores: an API check waits on the network far more
// than it computes, so a local run uses twice the cores (CI, whose machine runs other jobs too, the
// cores). Against a distant target the waits are round trips: a check that takes a few hundred
// milliseconds locally takes seconds there while its worker sits idle, so more workers send more of
// the independent checks at once. What must stay serial (one clock, one fault switch, one
// rate-limit window) is in the time-travel project, whose workers playwright.config.ts sets apart.

/** A round trip from which a target counts as distant (ms): well above loopback and a LAN. */
export const distantRoundTripMs = 10;

/** The workers for a run: `ci` the CI environment; `roundTripMs` what `run` measured to the target, if it did. */
export function checkWorkers(ci: boolean, roundTripMs: number | undefined): number {
  const base = ci ? 2 : 4;
  return roundTripMs !== undefined && roundTripMs >= distantRoundTripMs ? base * 2 : base;
}
