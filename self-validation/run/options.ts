// The self-validation's command line: which faults, how many workers, CI or full mode, where the
// clean run's files are and where the reports go.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import type { Fault } from '../fault.ts';
import { faults as catalogue } from '../faults/index.ts';
import type { Mode } from '../matrix.ts';

/** The command line, checked before anything is touched. */
export interface Options {
  selected: Fault[];
  /** `--only`: the faults asked for; undefined for the whole catalogue. */
  only: string[] | undefined;
  workers: number;
  mode: Mode;
  outDir: string;
  runsDir: string;
  cleanReportFile: string;
  cleanChecksFile: string;
}

/** Where the run writes its lines (the terminal). */
export type Out = (line: string) => void;

/** Parses the command line; usage mistakes throw here, before they can cost the previous run's reports. */
export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      workers: { type: 'string', default: '3' },
      only: { type: 'string' },
      full: { type: 'boolean', default: false },
      'clean-report': { type: 'string', default: join(repoRoot, 'reports', 'conformance.json') },
      'clean-checks': { type: 'string', default: join(repoRoot, 'reports', 'checks.json') },
      out: { type: 'string', default: join(repoRoot, 'reports', 'self-validation') },
    },
  });
  const only = values.only?.split(',');
  if (only)
    for (const id of only)
      if (!catalogue.some((f) => f.id === id)) throw new Error(`--only: no fault '${id}' in the catalogue`);
  if (!/^[1-9]\d*$/.test(values.workers))
    throw new Error(`--workers must be a positive integer (got '${values.workers}')`);
  return {
    selected: only ? catalogue.filter((f) => only.includes(f.id)) : catalogue,
    only,
    workers: Number(values.workers),
    mode: values.full ? 'full' : 'ci',
    outDir: values.out,
    runsDir: join(values.out, 'runs'),
    cleanReportFile: values['clean-report'],
    cleanChecksFile: values['clean-checks'],
  };
}
