// Writing the profile: validated first with the loader `run` uses, then written, then the `export`
// lines of the secrets it references.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseJsonc } from '../../../core/profile/jsonc.ts';
import { ProfileError, validateProfile, type LoadedProfile } from '../../../core/profile/load-profile.ts';
import type { CommandIo } from '../command-io.ts';
import { failure } from './options.ts';
import type { InitResult } from './render-profile.ts';

/** The profile validated and written to `out`, its export lines printed; or the exit code of a refusal (2). */
export function writeProfile(
  out: string,
  { text, exports }: InitResult,
  stateKeyEnv: string | undefined,
  io: CommandIo,
): LoadedProfile | number {
  const fail = failure(io);
  // Validate before writing, with every referenced variable present: what is checked is the shape.
  let loaded;
  try {
    loaded = validateProfile(parseJsonc(text), out, {
      env: Object.fromEntries(exports.map((e) => [e, 'set-for-validation-only'])),
    });
  } catch (error) {
    if (error instanceof ProfileError) {
      for (const l of error.message.split('\n')) io.err(l);
      return fail('the flags make a profile that would not load; nothing was written');
    }
    throw error;
  }
  try {
    mkdirSync(dirname(resolve(out)), { recursive: true });
    writeFileSync(out, text);
  } catch (error) {
    return fail(
      `--out ${out}: ${(error as NodeJS.ErrnoException).code ?? ''} ${(error as Error).message}`.replace(/\s+/g, ' '),
    );
  }
  io.out(`wrote ${out} (validated). Set its secrets, then check it against the target:`);
  for (const e of exports)
    io.out(`export ${e}=…${stateKeyEnv === e ? '  # e.g. $(openssl rand -base64 32), kept with the state file' : ''}`);
  io.out(`npx token-conformance run --target ${out} --check-profile`);
  return loaded;
}
