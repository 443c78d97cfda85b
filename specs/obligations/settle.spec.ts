// Settling the obligations due in this run: one check per obligation, under the
// requirement IDs of the check that recorded it, run first (the conformance pass; the recording
// checks are @clock and run in the time-travel pass after it). Each sends the one request that
// settles it (a control request more when it fails, to tell "the target no longer knows this
// client or user" — VOID — from a genuine FAIL). No obligations (no state file, none due): no checks.
import { needs, requirement, test } from '../../fixtures/index.ts';
import { dueSettlements } from '../../fixtures/support/obligations/due-settlements.ts';
import { settleSteps } from '../../fixtures/support/obligations/settle-steps.ts';

test.describe('obligations: settled in this run', () => {
  for (const { obligation: o, needs: capabilities } of dueSettlements()) {
    test(
      `${o.requirements.join(' ')} settle obligation ${o.id.slice(0, 8)}: ${o.what}`,
      requirement(...(o.requirements as [string, ...string[]]), needs(...capabilities), { obligations: 'settles' }),
      async ({ tokenClient, api, obligations }) => {
        await obligations.settle(o, settleSteps(o, tokenClient, api));
      },
    );
  }
});
