// What the run shows and writes: a line per fault, matrix.json and matrix.html, the summary.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Requirement } from '../../requirements/types.ts';
import { renderMatrixHtml } from '../matrix-html.ts';
import type { FaultResult, Matrix } from '../matrix.ts';
import type { Out } from './options.ts';

export function printFaultLines(ordered: FaultResult[], out: Out): void {
  for (const result of ordered) {
    const mark = result.detected && result.falseAlarms.length === 0 ? 'ok  ' : 'FAIL';
    out(
      `  ${mark} ${result.id.padEnd(36)} ${String(result.run.checks ?? '?').padStart(3)} checks ${result.run.server.padEnd(6)} ${result.run.passes.length} pass${result.run.passes.length > 1 ? 'es' : '  '}  breaks ${result.breaks.join(', ')}` +
        (result.missed.length ? ` — MISSED ${result.missed.map((m) => `${m.id}=${m.verdict}`).join(', ')}` : '') +
        (result.blocked.length ? ` — ${result.blocked.length} BLOCKED` : '') +
        (result.falseAlarms.length
          ? ` — FALSE ALARM ${result.falseAlarms.map((m) => `${m.id}=${m.verdict}`).join(', ')}`
          : '') +
        (result.problem ? ` — ${result.problem}` : ''),
    );
  }
}

export function writeMatrix(matrix: Matrix, requirements: Requirement[], outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'matrix.json'), `${JSON.stringify(matrix, null, 2)}\n`);
  writeFileSync(
    join(outDir, 'matrix.html'),
    renderMatrixHtml(
      matrix,
      requirements.map((r) => ({ id: r.id, level: r.level })),
    ),
  );
}

export function printSummary(matrix: Matrix, outDir: string, out: Out): void {
  const { summary: s, clean, coverage, properties } = matrix;
  out('');
  out(
    `SELF-VALIDATION: ${s.faults} faults, ${s.detected} detected, ${s.missed} missed, ${s.falseAlarms} false alarms (detection rate ${(s.detectionRate * 100).toFixed(1)} %)`,
  );
  out(
    `  clean run: ${clean.clean ? 'clean' : `NOT CLEAN (${clean.problem ?? `${clean.fail} FAIL, ${clean.warn} WARN`})`} — ${clean.source}`,
  );
  out(
    `  coverage: ${coverage.reached.length} of ${coverage.requirements} requirements turned by a detected fault (MUST/INTERPRETATION to FAIL, SHOULD/ADVISORY to WARN); ${coverage.unreachedWithReason.length} unreached with a reason, ${coverage.unreachedWithoutReason.length} without`,
  );
  for (const [level, c] of Object.entries(coverage.byLevel)) out(`    ${level}: ${c.reached} of ${c.total}`);
  for (const u of coverage.unreachedWithReason) out(`    ${u.id}: ${u.reason}`);
  if (coverage.unreachedWithoutReason.length)
    out(`    no fault, no reason: ${coverage.unreachedWithoutReason.join(', ')}`);
  out(
    `  property checks: ${properties.length} run, ${properties.filter((p) => p.caught.length > 0).length} caught a fault`,
  );
  for (const p of properties)
    out(
      `    ${p.caught.length ? 'caught' : 'CAUGHT NOTHING'} ${p.title.replace(/^.* › /, '').slice(0, 90)} — under ${p.ranUnder} fault(s)${p.caught.length ? `: ${p.caught.join(', ')}` : ''}`,
    );
  if (matrix.mode === 'full')
    for (const r of matrix.faults)
      out(
        `    ${r.id}: ${r.moved.length} requirement(s) moved to FAIL/WARN, ${r.falseAlarms.length} outside its breaks and collateral${r.falseAlarms.length ? ` (${r.falseAlarms.map((a) => a.id).join(', ')})` : ''}`,
      );
  out(`  run time ${(matrix.durationMs / 1000).toFixed(1)} s — ${join(outDir, 'matrix.json')}, matrix.html`);
}
