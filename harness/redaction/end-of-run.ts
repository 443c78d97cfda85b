// What `run` does to reports/ once Playwright has ended: scrub every file of known secrets.
import { knownSecretsRedactor } from '../reporter/conformance.reporter.ts';
import { scrubDirectory } from './scrub-directory.ts';

export function endOfRunRedaction(reportsDir: string, env: NodeJS.ProcessEnv): { code: number; lines: string[] } {
  scrubDirectory(reportsDir, knownSecretsRedactor(env));
  return { code: 0, lines: [] };
}
