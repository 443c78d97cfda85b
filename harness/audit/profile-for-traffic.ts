// The profile as `audit` and `record` use it: its addresses, declarations and capabilities. Its
// secrets are optional here (a team may audit traffic without holding the credentials); those that
// are set are digested wherever they appear in the traffic.
import { loadProfile, type LoadedProfile } from '../../core/profile/load-profile.ts';

const unset = '\u0000token-conformance:unset';

export function loadProfileForTraffic(file: string, env: NodeJS.ProcessEnv = process.env): { loaded: LoadedProfile; secrets: string[] } {
  // A secret variable that is not set is not a problem for reading traffic: give the loader a stand-in, then drop it.
  const lenient = new Proxy(env, { get: (target, name) => (typeof name === 'string' ? target[name] || unset : undefined) });
  const loaded = loadProfile(file, { env: lenient });
  return { loaded, secrets: loaded.secrets.map((s) => s.value).filter((v) => v !== unset) };
}
