// The profile's outlook: what a run with it will verify and what it will SKIP, and why.
import { loadCatalogue } from '../../../core/catalogue/catalogue.ts';
import type { TargetProfile } from '../../../core/profile/profile.schema.ts';
import { outlookLines, profileOutlook } from '../../init/profile-outlook.ts';
import type { CommandIo } from '../command-io.ts';
import { listChecks } from '../run-selection.ts';
import type { InitDeps } from './init-deps.ts';

/** Prints the outlook; a suite whose checks cannot be listed leaves a note, not a failed `init`. */
export async function printOutlook(profile: TargetProfile, io: CommandIo, deps: InitDeps): Promise<void> {
  try {
    const checks = await (deps.listChecks ?? (() => listChecks([], process.env)))();
    io.out('');
    for (const l of outlookLines(
      profileOutlook(
        profile,
        checks,
        loadCatalogue().map((r) => r.id),
      ),
    ))
      io.out(l);
  } catch (error) {
    io.err(
      `token-conformance init: note: could not list the suite's checks for the outlook: ${(error as Error).message}`,
    );
  }
}
