// Global setup of playwright.config.ts. Under `token-conformance run` it does nothing (the run
// command resolved the target). Run directly (`npx playwright test …`), it starts the bundled
// reference server with profiles/reference.json — or the profile named by TOKEN_CONFORMANCE_TARGET
// — so that a spec author can run one file without ceremony. Returns the teardown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../catalogue/catalogue.ts';
import { loadProfile } from '../profile/load-profile.ts';
import { profileEnvVar, toWorkerProfile, writeWorkerProfile } from '../profile/worker-profile.ts';
import { applyListening, referenceArgsFor, startReference } from '../reference/start-reference.ts';
import { reporterEnv } from '../reporter/conformance.reporter.ts';

export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env[profileEnvVar]) return undefined;
  const file = process.env.TOKEN_CONFORMANCE_TARGET ?? join(repoRoot, 'profiles', 'reference.json');
  const loaded = loadProfile(file);
  const temp = mkdtempSync(join(tmpdir(), 'token-conformance-'));
  const startServer = loaded.profile.local && process.env.TOKEN_CONFORMANCE_NO_REFERENCE !== '1';
  const server = startServer ? await startReference({ logDir: temp, extraArgs: referenceArgsFor(loaded.profile) }) : undefined;
  const profile = server ? applyListening(loaded.profile, server.listening) : loaded.profile;
  const handoff = toWorkerProfile({ ...loaded, profile });
  Object.assign(process.env, handoff.env, {
    [profileEnvVar]: writeWorkerProfile(handoff.profile, temp),
    [reporterEnv.seenTokens]: join(temp, 'seen-tokens.txt'),
    // A direct run usually selects files: requirements without a selected check read as SKIP, not UNCHECKED.
    [reporterEnv.filtered]: process.env[reporterEnv.filtered] ?? '1',
  });
  return async () => {
    await server?.stop();
    // The temp directory (profile, seen tokens) is removed after the reporters ran: see the reporter's onExit.
    process.on('exit', () => rmSync(temp, { recursive: true, force: true }));
  };
}
