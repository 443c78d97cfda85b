// A run that verified nothing is not green: a selection that matches no check is a usage error
// (exit 2, one line), an empty shard aside; end to end against the reference server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { emptySelection, runMain } from '../commands/run.command.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');

void describe('an empty selection', () => {
  void test('names the selection the user gave; checks that ran, or a shard, are fine', () => {
    assert.equal(emptySelection({ grep: '@NOPE-123', level: 'all' }, 0), '--grep @NOPE-123');
    assert.equal(
      emptySelection({ level: 'must', specs: ['specs/x.spec.ts'], passes: ['time-travel'] }, 0),
      '--level must --spec specs/x.spec.ts --passes time-travel',
    );
    assert.equal(emptySelection({ level: 'all' }, 0), 'the whole suite');
    assert.equal(emptySelection({ grep: '@NOPE-123', level: 'all' }, 1), undefined);
    assert.equal(
      emptySelection({ grep: '@NOPE-123', level: 'all', shard: '3/4' }, 0),
      undefined,
      'an empty shard is fine',
    );
  });

  void test('run --grep @NOPE-123 exits 2 with one usage line, and its report does not read as a green run', async () => {
    const reports = temporaryDirectory('tc-empty-');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMain(
      [
        '--target',
        join(root, 'profiles', 'reference.json'),
        '--start-reference',
        '--grep',
        '@NOPE-123',
        '--reports',
        reports,
      ],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    assert.equal(code, 2, [...out, ...err].join('\n'));
    const usage = err.filter((l) => l.startsWith('token-conformance run: no check matches'));
    assert.deepEqual(usage, [
      'token-conformance run: no check matches the selection (--grep @NOPE-123): nothing was verified',
    ]);
    assert.ok(
      out.some((l) => l.includes('NO CHECK RAN (--grep @NOPE-123): nothing was verified')),
      out.join('\n'),
    );
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as { checks: { total: number } };
    assert.equal(report.checks.total, 0);
  });
});
