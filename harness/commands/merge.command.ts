// `npx token-conformance merge SHARD... --out DIR`: the reports of a run split with `run --shard I/N`
// merged into the reports one unsharded run would have written (conformance.json, checks.json,
// traceability.html, junit.xml, junit-time-travel.xml, transcripts/, allure-results/). Exit 0
// merged (whatever the verdict: `gate` decides the build), 2 bad arguments or mismatched shards.
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MergeError, mergeShardDirectories } from '../merge/merge.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { processIo, type CommandIo } from './command-io.ts';

const usage = `Usage: token-conformance merge SHARD... --out DIR

  SHARD      the --reports directory of one \`token-conformance run --shard I/N\` (or its
             conformance.json); give all N shards of the run
  --out DIR  where to write the merged reports (created if needed)
  --help

Verdicts are recomputed per requirement from the checks of every shard. Refused (exit 2): shards
of different suite versions, profiles, levels, --grep or --strict; an input that is not a shard;
the same shard twice, missing shards, or a check in two shards. Exit 0 once merged, whatever the
verdict: \`token-conformance gate DIR/conformance.json\` decides the build. Playwright's blob
reports (DIR/blob-report/ of each shard) merge with \`npx playwright merge-reports\`.`;

/** The options of `merge` (exported so that the CI example's commands can be checked against them). */
export const mergeOptions = { out: { type: 'string' }, help: { type: 'boolean', default: false } } as const;

export function mergeMain(args: string[], io: CommandIo = processIo): Promise<number> {
  return Promise.resolve(mergeSync(args, io));
}

function mergeSync(args: string[], io: CommandIo): number {
  const fail = (message: string): number => {
    io.err(`token-conformance merge: ${message}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args, strict: true, allowPositionals: true, options: mergeOptions });
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${usage}`);
  }
  if (parsed.values.help) {
    io.out(usage);
    return 0;
  }
  if (!parsed.values.out) return fail(`--out DIR is required\n\n${usage}`);
  if (parsed.positionals.length === 0) return fail(`give the report directory of every shard\n\n${usage}`);
  const out = resolve(parsed.values.out);
  try {
    const merged = mergeShardDirectories(parsed.positionals, out);
    const where = relative(process.cwd(), out) || '.';
    io.out(renderSummary(merged.report, false, where));
    if (merged.shardsHadWaivers)
      io.err(
        'token-conformance merge: note: the shards were judged with waivers (run --waivers); the merged report is built from the checks, before waivers — give them to `gate --waivers`.',
      );
    io.out(
      `MERGED ${parsed.positionals.length} shards into ${where}: ${merged.files.join(', ')}${merged.transcripts > 0 ? ` (${merged.transcripts} transcripts)` : ''}`,
    );
    return 0;
  } catch (error) {
    if (error instanceof MergeError) {
      const lines = error.message.split('\n');
      io.err(`token-conformance merge: cannot merge: ${lines[0]!}`);
      for (const line of lines.slice(1)) io.err(`token-conformance merge: cannot merge: ${line}`);
      io.err('token-conformance merge: nothing was written.');
      return 2;
    }
    throw error;
  }
}
