// `npx token-conformance diff OLD.json NEW.json [--json]`: requirements newly failing, fixed and
// changed between two runs, plus added/removed requirements. Exit 0 whatever changed (it informs;
// `gate` decides), 2 on bad arguments or an unreadable report.
import { parseArgs } from 'node:util';
import { readReport, ReportError } from '../reporter/read-report.ts';
import { diffReports, renderDiff } from '../diff/diff.ts';
import { processIo, type CommandIo } from './command-io.ts';
import { scoreInCatalogue } from '../reporter/catalogue-scoring.ts';
import { catalogueVersion, CatalogueVersionError } from '../../requirements/catalogue-versions.ts';

const usage = `Usage: token-conformance diff OLD.json NEW.json [--json] [--catalogue VERSION]

  --json                print the comparison as JSON
  --catalogue VERSION   compare both runs in this frozen catalogue release: requirements added
                        after it are left out of both (they ran, but are not scored in VERSION)
  --help

Lists requirements newly failing (FAIL/UNCHECKED), newly warning, newly blocked, fixed (now PASS),
settled (PENDING before: the obligation's verdict, when it was recorded and settled), newly pending
(with the due time), every other verdict change, and requirements added or removed. Exit 0 (informative: \`gate\` decides the
build); 2 on bad arguments or an unreadable report.`;

export function diffMain(args: string[], io: CommandIo = processIo): Promise<number> {
  return Promise.resolve(diffSync(args, io));
}

function diffSync(args: string[], io: CommandIo = processIo): number {
  const fail = (message: string): number => {
    io.err(`token-conformance diff: ${message}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        catalogue: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${usage}`);
  }
  if (parsed.values.help) {
    io.out(usage);
    return 0;
  }
  if (parsed.positionals.length !== 2)
    return fail(`give OLD.json and NEW.json (got ${parsed.positionals.length} files)\n\n${usage}`);
  const [oldFile, newFile] = parsed.positionals as [string, string];
  try {
    let [older, newer] = [readReport(oldFile), readReport(newFile)];
    const release = parsed.values.catalogue;
    if (release !== undefined)
      [older, newer] = [
        scoreInCatalogue(older, catalogueVersion(release)),
        scoreInCatalogue(newer, catalogueVersion(release)),
      ];
    else if (older.catalogue?.version !== newer.catalogue?.version) {
      io.err(
        `token-conformance diff: note: ${oldFile} scores catalogue ${older.catalogue?.version ?? '(not named)'}, ${newFile} catalogue ${newer.catalogue?.version ?? '(not named)'}: requirements outside one of them read as added or removed (--catalogue VERSION compares both in one release)`,
      );
    }
    const d = diffReports(older, newer, { old: oldFile, new: newFile });
    io.out(parsed.values.json ? JSON.stringify(d, null, 2) : renderDiff(d));
  } catch (error) {
    if (error instanceof ReportError || error instanceof CatalogueVersionError) return fail(error.message);
    throw error;
  }
  return 0;
}
