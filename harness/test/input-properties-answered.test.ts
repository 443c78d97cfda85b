// The reference server answers every request of the input properties in time, however busy the
// machine: none is sent again by their per-request deadline guard (checks.sentAgain in
// conformance.json, the count the closing line shows). A re-send there once meant the checking
// process, blocked by its own work, read an answer late: that is this suite's defect, not the
// target's slowness, so the count is held at 0 here. End to end against the reference server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runMain } from '../commands/run.command.ts';
import { temporaryDirectory } from './support/temporary-directory.ts';

const root = join(import.meta.dirname, '..', '..');

void test(
  'the input properties against the reference server: every request answered the first time (0 sent again)',
  // A safety net: the run is awaited on its end.
  { timeout: 900_000 },
  async () => {
    const reports = temporaryDirectory('tc-sent-again-');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMain(
      [
        '--target',
        join(root, 'profiles', 'reference.json'),
        '--start-reference',
        '--spec',
        'specs/properties/token-endpoint-input.spec.ts',
        '--spec',
        'specs/properties/gateway-input.spec.ts',
        '--reports',
        reports,
      ],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    const log = [...out, ...err].join('\n');
    assert.equal(code, 0, log);
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
      checks: { total: number; requests?: number; sentAgain?: number };
    };
    const { checks } = JSON.parse(readFileSync(join(reports, 'checks.json'), 'utf8')) as {
      checks: { title: string; sentAgain?: number }[];
    };
    assert.ok(report.checks.total >= 2 && (report.checks.requests ?? 0) > 100, JSON.stringify(report.checks));
    assert.equal(
      report.checks.sentAgain,
      0,
      `sent again: ${checks
        .filter((c) => c.sentAgain)
        .map((c) => `${c.title} (${c.sentAgain})`)
        .join('; ')}\n${log}`,
    );
    assert.ok(
      out.some((l) => /\d+ requests, 0 sent again\)/.test(l)),
      'the closing line shows the count',
    );
  },
);
