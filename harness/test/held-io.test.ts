// The lines of a phase started before the verdict of the one before it (the preflight beside the
// reachability probes): held in order, written once released, never written if the run ends first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Exit, heldIo, type PhaseIo } from '../commands/run/phase-io.ts';

const recording = () => {
  const lines: string[] = [];
  const io: PhaseIo = {
    out: (line) => lines.push(`out ${line}`),
    err: (line) => lines.push(`err ${line}`),
    fail: (message) => {
      lines.push(`err token-conformance run: ${message}`);
      return new Exit(2);
    },
  };
  return { io, lines };
};

void test('held lines are written in their order once released, later ones at once', () => {
  const { io, lines } = recording();
  const held = heldIo(io);
  held.io.err('a note');
  held.io.out('a line');
  const exit = held.io.fail('a setup problem');
  assert.ok(exit instanceof Exit);
  assert.equal(exit.code, 2);
  assert.deepEqual(lines, [], 'nothing before the release');
  held.release();
  assert.deepEqual(lines, ['err a note', 'out a line', 'err token-conformance run: a setup problem']);
  held.io.err('after');
  assert.deepEqual(lines.at(-1), 'err after');
  held.release();
  assert.equal(lines.length, 4, 'a second release writes nothing again');
});

void test('never released: nothing is written', () => {
  const { io, lines } = recording();
  const held = heldIo(io);
  held.io.err('a preflight note about a target that does not answer');
  assert.deepEqual(lines, []);
});
