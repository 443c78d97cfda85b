// The conformance workers: twice the usual only against a distant target and with a core idle to
// start them; a near target or a busy machine keeps the usual count. Lanes likewise, or from a far
// target on whatever the load.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkWorkers, distantRoundTripMs, farRoundTripMs, lanesPay } from '../run/check-workers.ts';

void describe('check workers', () => {
  void test('the usual count without a measured round trip: 4, or 2 in CI', () => {
    assert.equal(checkWorkers({ ci: false, idleCores: 2 }), 4);
    assert.equal(checkWorkers({ ci: true, idleCores: 2 }), 2);
  });

  void test('a near target keeps the usual count', () => {
    assert.equal(checkWorkers({ ci: false, roundTripMs: 0.4, idleCores: 2 }), 4);
    assert.equal(checkWorkers({ ci: false, roundTripMs: distantRoundTripMs - 0.1, idleCores: 2 }), 4);
  });

  void test('a distant target gets twice the workers while a core is idle, the usual count on a busy machine', () => {
    assert.equal(checkWorkers({ ci: false, roundTripMs: distantRoundTripMs, idleCores: 1 }), 8);
    assert.equal(checkWorkers({ ci: true, roundTripMs: 160, idleCores: 1.5 }), 4);
    assert.equal(checkWorkers({ ci: false, roundTripMs: 160, idleCores: 0.9 }), 4);
    assert.equal(checkWorkers({ ci: false, roundTripMs: 160, idleCores: 0 }), 4);
  });

  void test('lanes: with a core idle from a distant target on, on a busy machine only from a far one', () => {
    assert.equal(lanesPay({ ci: false, roundTripMs: 1, idleCores: 2 }), false);
    assert.equal(lanesPay({ ci: false, roundTripMs: distantRoundTripMs, idleCores: 1 }), true);
    assert.equal(lanesPay({ ci: false, roundTripMs: 40, idleCores: 0 }), false);
    assert.equal(lanesPay({ ci: false, roundTripMs: farRoundTripMs, idleCores: 0 }), true);
    assert.equal(lanesPay({ ci: false, idleCores: 2 }), false);
  });
});
