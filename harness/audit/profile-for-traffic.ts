// The profile as `audit` and `record` use it: its addresses, declarations and capabilities. Its
// secrets are optional here (a team may audit traffic without holding the credentials); those that
// are set are digested wherever they appear in the traffic. `audit` opens no connection, so a CA
// file that is not on the auditing machine is no problem there either.
import { readFileSync } from 'node:fs';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import { loadProfile, ProfileError, validateProfile, type LoadedProfile } from '../../core/profile/load-profile.ts';

const unset = '\u0000token-conformance:unset';

export function loadProfileForTraffic(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { connects: boolean } = { connects: true },
): { loaded: LoadedProfile; secrets: string[] } {
  // A secret variable that is not set is not a problem for reading traffic: give the loader a stand-in, then drop it.
  const lenient = new Proxy(env, {
    get: (target, name) => (typeof name === 'string' ? target[name] || unset : undefined),
  });
  let loaded: LoadedProfile;
  if (options.connects) loaded = loadProfile(file, { env: lenient });
  else {
    let raw: unknown;
    try {
      raw = parseJsonc(readFileSync(file, 'utf8'));
    } catch (error) {
      // The loader's own message (a line and column, or why the file cannot be read).
      loadProfile(file, { env: lenient });
      throw error;
    }
    if (raw !== null && typeof raw === 'object') delete (raw as Record<string, unknown>).caFile;
    loaded = validateProfile(raw, file, { env: lenient });
  }
  return { loaded, secrets: loaded.secrets.map((s) => s.value).filter((v) => v !== unset) };
}

export { ProfileError };
