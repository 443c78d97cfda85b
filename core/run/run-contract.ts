// The run's contract: what the `run` command (and the self-validation) hands the conformance
// reporter and the Playwright workers through the environment, and the redactor that knows every
// secret of a run — the profile's, and every token the checks saw. Both sides read it here, so
// neither imports the other.
import { existsSync, readFileSync } from 'node:fs';
import { redactorFromEnv, type Redactor } from '../redaction/redact.ts';

/** Environment the `run` command sets for the reporter. */
export const reporterEnv = {
  level: 'TOKEN_CONFORMANCE_LEVEL',
  grep: 'TOKEN_CONFORMANCE_GREP',
  shard: 'TOKEN_CONFORMANCE_SHARD',
  strict: 'TOKEN_CONFORMANCE_STRICT',
  filtered: 'TOKEN_CONFORMANCE_FILTERED',
  mergeChecks: 'TOKEN_CONFORMANCE_MERGE_CHECKS',
  seenTokens: 'TOKEN_CONFORMANCE_SEEN_TOKENS',
  quiet: 'TOKEN_CONFORMANCE_QUIET',
  /** A JSON file with the region-parity section `run` measured before the checks (parity/). */
  regionParity: 'TOKEN_CONFORMANCE_REGION_PARITY',
  /** SHA-256 of the profile file, literal secrets excluded (harness/bundle/bundle.ts profileSha256). */
  profileSha256: 'TOKEN_CONFORMANCE_PROFILE_SHA256',
  /** Set by `run`: it verifies the reports once after both passes, so the reporter does not. */
  verifiedByRun: 'TOKEN_CONFORMANCE_VERIFIED_BY_RUN',
} as const;

/** The profile's secrets (from the environment) and every token listed in the seen-tokens file. */
export function knownSecretsRedactor(env: NodeJS.ProcessEnv = process.env): Redactor {
  const redactor = redactorFromEnv(env);
  const seen = env[reporterEnv.seenTokens];
  if (seen && existsSync(seen)) for (const line of readFileSync(seen, 'utf8').split('\n')) redactor.add(line.trim());
  return redactor;
}
