// The redactor that knows every secret of a run — the profile's (from the environment), and every
// token the checks saw (the seen-tokens file the run manifest names). Both sides of a run read it
// here, so neither imports the other.
import { existsSync, readFileSync } from 'node:fs';
import { redactorFromEnv, type Redactor } from '../redaction/redact.ts';
import { readRunManifest } from './run-manifest.ts';

/** The tokens the target issued during the run: the lines of the run's seen-tokens file. */
export function seenTokens(env: NodeJS.ProcessEnv = process.env): string[] {
  const seen = readRunManifest(env).seenTokens;
  if (!seen || !existsSync(seen)) return [];
  return readFileSync(seen, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/** The profile's secrets (from the environment) and every token listed in the run's seen-tokens file. */
export function knownSecretsRedactor(env: NodeJS.ProcessEnv = process.env): Redactor {
  const redactor = redactorFromEnv(env);
  for (const token of seenTokens(env)) redactor.add(token);
  return redactor;
}
